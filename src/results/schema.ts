import { z } from "zod";

/**
 * The results of one `proxybench run`: the contract between the runner, the reports, the
 * GitHub actions and anyone reading `results.json`. `results.schema.json` at the repository
 * root is generated from these definitions (`npm run schema`); bump SCHEMA_VERSION on any
 * change that an older reader could misread.
 */
export const SCHEMA_VERSION = 2;

/** ok: a measurement to publish. Every other status is shown with its reasons, never as numbers. */
export const CellStatus = z.enum(["ok", "invalid", "failed", "loadgen-bound", "noisy", "skipped"]);
export type CellStatus = z.infer<typeof CellStatus>;

/** Worst first: a cell takes the worst status of its repetitions. */
const STATUS_SEVERITY: readonly CellStatus[] = ["failed", "invalid", "loadgen-bound", "noisy", "skipped", "ok"];

export const Engine = z.enum(["k6", "wrk", "ab", "vegeta", "h2load"]);
export type Engine = z.infer<typeof Engine>;

/** The number types of the figures below: a count or index, a count of at least one, a measure. */
const Whole = z.number().int().nonnegative();
const Positive = z.number().int().positive();
const NonNegative = z.number().nonnegative();
/** A latency statistic in milliseconds. */
const Ms = NonNegative;
/** http1 and https: HTTP/1.1 in cleartext and over TLS; h2c and h2: HTTP/2 likewise; grpc and grpcs: gRPC likewise. */
export const Protocol = z.enum(["http1", "https", "h2c", "h2", "grpc", "grpcs"]);
export type Protocol = z.infer<typeof Protocol>;

export const LatencyMs = z
  .object({ min: Ms, mean: Ms, p50: Ms, p90: Ms, p95: Ms, p99: Ms, max: Ms })
  .describe("Latency of successful responses only, in milliseconds.");
export type LatencyMs = z.infer<typeof LatencyMs>;

export const ProxyCost = z
  .object({
    source: z
      .enum(["proc", "cgroup"])
      .describe("Where it was read: proc, the proxy's process group in /proc (native); cgroup, its container's control group (docker)."),
    cpuS: NonNegative
      .describe("CPU time (user + system) of the proxy, all its processes and threads, over the engine's measured window, seconds (ns resolution): the span around the engine run less idleCpuS."),
    idleCpuS: NonNegative
      .describe("Taken off the span: the proxy's idle CPU rate times the span's time outside the window (the engine's start-up and exit), seconds."),
    windowS: NonNegative.describe("The window cpuS covers, seconds."),
    cpuPerRequestUs: NonNegative
      .optional()
      .describe("cpuS per request completed (the repetition's requests), microseconds."),
    requestsPerCpuS: NonNegative.optional().describe("Requests completed per CPU-second of the proxy."),
    peakMemoryMiB: NonNegative
      .optional()
      .describe("Peak memory of the proxy, MiB. proc: the sum of its processes' peak resident sets (VmHWM; pages shared between processes count once per process). cgroup: the container's peak charge (memory.peak, v1 memory.max_usage_in_bytes: anonymous memory, page cache and kernel memory)."),
    peakSince: z
      .enum(["repetition", "process", "start"])
      .optional()
      .describe(
        "Where the peak starts: this repetition (reset before it); process, the start of this round's own process (--proxy-lifetime round: its warm-up and this repetition); or start, the proxy's start for every round of its block (a running maximum: shown, never tested).",
      ),
  })
  .describe("The proxy's own cost over the repetition's measured window.");
export type ProxyCost = z.infer<typeof ProxyCost>;

export const Repetition = z.object({
  index: Whole.describe("0-based measured repetition (warm-up is not recorded)."),
  round: Whole
    .optional()
    .describe("0-based round: in each round every cell of a block (every variant) gets one repetition; compare pairs variants by round."),
  attempts: Positive
    .optional()
    .describe("Measurements made for this repetition: more than 1 when a noisy one or one with dropped iterations was measured again."),
  noise: z
    .object({
      otherCpu: z
        .number()
        .describe("CPU used on the run's pinned cores by processes other than the benchmark's own, in cores: above settings.noiseLimit the repetition is noisy."),
      steal: NonNegative
        .describe("Steal time on the pinned cores (the hypervisor ran something else), in cores: never noisy by itself; above settings.noiseLimit the round is left out of the tests of the metrics that hold it (latency and requests/sec; CPU per request too unless environment.stealAccounting is excluded)."),
    })
    .optional()
    .describe("Interference measured during the repetition (Linux /proc/stat)."),
  startedAt: z.iso.datetime(),
  durationS: z.number().positive().describe("Measured wall time of the load phase, seconds."),
  status: CellStatus,
  reasons: z.array(z.string()),
  rps: NonNegative.describe("Successful (2xx and check-passing) responses per second."),
  requests: Whole.describe("All requests completed, successful or not."),
  errors: Whole.describe("Transport errors: refused, reset, timed out."),
  non2xx: Whole,
  checkFailures: Whole.default(0).describe("2xx responses whose body failed the scenario's check."),
  statusCodes: z.record(z.string(), Whole).default({}).describe("Responses per HTTP status code; '0' for transport errors."),
  droppedIterations: Whole.default(0).describe("Open-model iterations the load generator could not start."),
  bytesReceived: NonNegative.optional(),
  latencyMs: LatencyMs,
  latencyPercentilesMs: z
    .record(z.string(), NonNegative)
    .optional()
    .describe("Extra percentiles keyed by percent, e.g. {'75': 1.2, '99.9': 4.1}."),
  loadgenCpu: NonNegative.optional().describe("CPU used by the load generator, in cores (1 = one full core)."),
  proxyCpu: NonNegative
    .optional()
    .describe("CPU used by the proxy, in cores: proxyCost.cpuS over its window (files without proxyCost: over the whole engine run, rounded to 0.001)."),
  proxyCost: ProxyCost.optional(),
  raw: z.array(z.string()).default([]).describe("Engine output files, relative to the results directory."),
});
export type Repetition = z.infer<typeof Repetition>;

export const Load = z.object({
  label: z.string().min(1).describe("Short name of the load level, unique within a scenario: 'default', '100vus'."),
  model: z.enum(["constant-vus", "constant-arrival-rate", "max-throughput", "fixed-count"]),
  vus: Positive.optional(),
  connections: Positive.optional(),
  rate: z.number().positive().optional().describe("Requests (k6: iterations) per second for an open model."),
  requests: Positive.optional().describe("Total request count for a fixed-count run (ab -n)."),
  durationS: z.number().positive().optional(),
  warmupS: NonNegative.optional(),
  keepAlive: z
    .boolean()
    .optional()
    .describe("Reuse client connections (ab -k). Absent: the engine's default (k6 and wrk reuse, ab does not)."),
});
export type Load = z.infer<typeof Load>;

export const Cell = z.object({
  id: z
    .string()
    .describe("scenario/load/proxy/engine (and @variant in a variant run): stable across runs, the key compare and history join on."),
  variant: z.string().optional().describe("The variant (--variant NAME=DIR) this cell measured."),
  runner: z
    .string()
    .optional()
    .describe("Host name of the machine that measured this cell, in results merged from several runs (shards)."),
  upstream: z
    .object({ latencyMs: NonNegative, maxRps: NonNegative })
    .optional()
    .describe("The built-in upstream's settings from the cell's scenario (a variant may bring its own)."),
  loadgenVus: Positive
    .optional()
    .describe("VUs the load generator ran an arrival-rate load with, when the warm-up's latency called for more than the load's own (Little's law, doubled)."),
  redone: z
    .object({
      noisy: Whole.default(0),
      dropped: Whole.default(0),
    })
    .optional()
    .describe("Repetitions measured again: noisy ones and ones with dropped iterations."),
  proxy: z.string(),
  scenario: z.string(),
  engine: Engine,
  protocol: Protocol.optional().describe("What the load generator spoke to the proxy (the scenario's protocol); absent: http1."),
  load: Load,
  status: CellStatus,
  reasons: z.array(z.string()),
  proxyVersion: z.string().optional(),
  runtime: z.enum(["native", "docker"]).default("native"),
  tuning: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .default({})
    .describe("The tuning the proxy ran with: workers, upstream keep-alive, connection limits..."),
  repetitions: z.array(Repetition),
  startedAt: z.iso.datetime().optional(),
  finishedAt: z.iso.datetime().optional(),
  logs: z.array(z.string()).default([]).describe("Proxy and upstream logs, relative to the results directory."),
});
export type Cell = z.infer<typeof Cell>;

export const CpuLayout = z.object({
  loadgen: z.array(Whole),
  proxy: z.array(Whole),
  upstream: z.array(Whole),
});
export type CpuLayout = z.infer<typeof CpuLayout>;

export const StealAccounting = z
  .enum(["excluded", "included", "unknown"])
  .describe(
    "Whether the kernel takes the hypervisor's stolen time off a task's run time (CONFIG_PARAVIRT_TIME_ACCOUNTING=y without no-steal-acc: excluded), so the proxy's CPU time leaves it out; unknown where the kernel's config cannot be read.",
  );
export type StealAccounting = z.infer<typeof StealAccounting>;

export const Environment = z.object({
  hostname: z.string().optional(),
  os: z.string(),
  kernel: z.string(),
  arch: z.string(),
  cpuModel: z.string(),
  cores: Positive,
  memoryBytes: NonNegative.optional(),
  governor: z.string().optional().describe("CPU frequency governor, when the machine exposes one."),
  tuning: z
    .object({
      smt: z.string().optional().describe("/sys/devices/system/cpu/smt/control: on, off, notsupported..."),
      boost: z.enum(["on", "off"]).optional().describe("Frequency boost (turbo)."),
      irqbalance: z.boolean().optional().describe("Whether irqbalance ran (it moves interrupts onto pinned cores)."),
      irqDefaultCores: z.string().optional().describe("Cores new interrupts may go to (/proc/irq/default_smp_affinity)."),
    })
    .optional()
    .describe("What the kernel does to the cores beside the benchmark, as far as the machine exposes it."),
  stealAccounting: StealAccounting.optional().describe(
    "Whether the proxy's CPU time leaves the hypervisor's stolen time out (src/environment/steal-accounting.ts); absent: runs before it was recorded, and machines other than Linux.",
  ),
  loadAverage: z.tuple([z.number(), z.number(), z.number()]).describe("1, 5 and 15 minute load average before the run."),
  node: z.string(),
  tools: z.record(z.string(), z.string()).default({}).describe("Versions of k6, wrk, taskset..."),
  proxies: z.record(z.string(), z.string()).default({}).describe("Version of every proxy that ran."),
  git: z
    .object({
      commit: z.string().optional(),
      branch: z.string().optional(),
      dirty: z.boolean().optional(),
      message: z.string().optional(),
      timestamp: z.string().optional(),
      author: z.object({ name: z.string().optional(), email: z.string().optional() }).optional(),
    })
    .default({}),
  ci: z
    .object({ provider: z.string(), runId: z.string().optional(), runUrl: z.string().optional() })
    .optional(),
  limits: z
    .record(
      z.string(),
      z.object({
        cores: z.array(Whole),
        memoryBytes: Positive.optional(),
        how: z.string(),
      }),
    )
    .optional()
    .describe("Cores and memory caps of the run's processes by role (the extensibility study: gateway, coprocessor)."),
  tls: z
    .record(
      z.string(),
      z.object({ version: z.string(), cipher: z.string(), alpn: z.string().optional() }),
    )
    .optional()
    .describe("What a probe handshake (Node's tls module) settled on with each proxy over TLS, keyed proxy/protocol."),
});
export type Environment = z.infer<typeof Environment>;

export const Settings = z.object({
  proxies: z.array(z.string()),
  scenarios: z.array(z.string()),
  engine: Engine.optional().describe("Engine forced on the command line; otherwise each scenario's own."),
  repetitions: Positive,
  durationS: z.number().positive().optional(),
  warmupS: NonNegative.optional(),
  cpus: CpuLayout,
  runtime: z.enum(["native", "docker"]).default("native"),
  study: z.string().optional(),
  loads: z.array(z.string()).optional().describe("Load labels picked with --load; absent: each scenario's first load."),
  proxiesDirs: z.array(z.string()).optional().describe("Extra proxy manifest folders (--proxies-dir), absolute."),
  scenariosDirs: z.array(z.string()).optional().describe("Extra scenario manifest folders (--scenarios-dir), absolute."),
  tls: z
    .boolean()
    .optional()
    .describe("--tls: every scenario measured also over TLS (https, h2, grpcs) on the client side of the proxies that declare it."),
  imageTag: z.string().optional().describe("Image tag of the proxies in a docker run."),
  variants: z
    .array(
      z.object({
        name: z.string(),
        dir: z.string(),
        imageTag: z
          .string()
          .optional()
          .describe("Image tag of this variant's proxies in a docker run (--variant NAME:TAG=DIR)."),
        proxiesDir: z
          .string()
          .optional()
          .describe("This variant's proxies folder (--variant-proxies-dir inside DIR); absent: DIR/proxies."),
        scenariosDir: z
          .string()
          .optional()
          .describe("This variant's scenarios folder (--variant-scenarios-dir inside DIR); absent: DIR/scenarios."),
      }),
    )
    .optional()
    .describe("Variants measured side by side in rounds (--variant NAME=DIR), in order; absent: one variant."),
  roundOrder: z
    .enum(["abba", "random"])
    .optional()
    .describe("Order of the cells within each round: abba (reversed every other round) or random (seeded)."),
  seed: z.number().int().optional().describe("Seed of the random round order."),
  testedMetrics: z
    .array(z.enum(["rps", "mean", "p50", "p99", "cpuPerRequest", "peakMemory"]))
    .min(1)
    .optional()
    .describe(
      "The metrics a comparison of this run tests (--test-metrics), the others shown with their estimate and interval; absent: every metric (runs before the setting).",
    ),
  proxyLifetime: z
    .enum(["round", "block"])
    .optional()
    .describe(
      "How long one proxy process serves: a round (each round starts it anew, with its warm-up, so the rounds sample its processes) or the whole block; absent: block (runs before the setting).",
    ),
  noiseLimit: NonNegative
    .optional()
    .describe(
      "In cores: other processes' CPU on the pinned cores above which a repetition is noisy and measured again; steal above it leaves the round out of the tests of the metrics that hold stolen time. Absent: 0.05.",
    ),
  retries: Whole.optional().describe("Times a noisy repetition is measured again."),
  shard: z
    .object({ index: Positive, count: Positive })
    .optional()
    .describe("The part of the matrix this run measured (--shard INDEX/COUNT); absent: all of it."),
  sequential: z
    .object({
      alpha: z.number().positive().describe("The family's false-alarm rate the plan spends."),
      tests: Positive.describe("Tested metrics in the family the rounds were sized for."),
      looks: z
        .array(z.object({ rounds: Positive, alpha: z.number().positive() }))
        .min(1)
        .describe("Round counts where compare looks, and the alpha spent at each (summing to at most alpha)."),
      budgetMinutes: z.number().positive().optional().describe("--budget: the run's time budget, minutes."),
      targetPct: z
        .number()
        .positive()
        .optional()
        .describe(
          "--target: a block also stops at a look once every undecided metric would show a change of this % at 80% power.",
        ),
    })
    .optional()
    .describe("--repetitions auto: the rounds planned before the run; a block stops at a look once every metric is decided."),
});
export type Settings = z.infer<typeof Settings>;

export const Results = z.object({
  $schema: z.string().optional(),
  /** The versions this reader accepts: 1 had no variants, rounds or noise figures. */
  schemaVersion: z.union([z.literal(1), z.literal(2)]),
  tool: z.object({ name: z.literal("proxybench"), version: z.string() }),
  runId: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().optional(),
  settings: Settings,
  environment: Environment,
  skipped: z
    .array(
      z.object({
        proxy: z.string(),
        scenario: z
          .string()
          .optional()
          .describe("The scenario the proxy was not run on; absent: not run on any (e.g. image only)."),
        reason: z.string(),
      }),
    )
    .default([])
    .describe("Proxies asked for but not run here, e.g. image-only proxies in a native run, or a scenario whose protocol the proxy does not front."),
  cells: z.array(Cell),
});
export type Results = z.infer<typeof Results>;

/** The worst of several statuses (an empty list is ok). */
export function worstStatus(statuses: Iterable<CellStatus>): CellStatus {
  let worst: CellStatus = "ok";
  for (const s of statuses) {
    if (STATUS_SEVERITY.indexOf(s) < STATUS_SEVERITY.indexOf(worst)) worst = s;
  }
  return worst;
}

/** The protocol of a cell over TLS, which its id names (`nginx+https`); undefined in cleartext. */
export function overTls(protocol: Protocol | undefined): Protocol | undefined {
  return protocol === "https" || protocol === "h2" || protocol === "grpcs" ? protocol : undefined;
}

export function cellId(
  scenario: string,
  loadLabel: string,
  proxy: string,
  engine: Engine,
  variant?: string,
  tlsProtocol?: Protocol,
): string {
  const over = tlsProtocol === undefined ? "" : `+${tlsProtocol}`;
  return `${scenario}/${loadLabel}/${proxy}${over}/${engine}${variant === undefined ? "" : `@${variant}`}`;
}

/** The id of a cell without its variant: what the variants of one cell share. */
export function cellKey(cell: Pick<Cell, "scenario" | "load" | "proxy" | "engine" | "protocol">): string {
  return cellId(cell.scenario, cell.load.label, cell.proxy, cell.engine, undefined, overTls(cell.protocol));
}
