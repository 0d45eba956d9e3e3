import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { getEngine } from "../engines/index.js";
import type { EngineAdapter } from "../engines/types.js";
import { loadManifests, type LoadedProxy, type ManifestDirs } from "../manifests/load.js";
import type { CpuLayout } from "../results/schema.js";
import { logTail } from "../util/logs.js";
import { NativeRuntime } from "../runner/native-runtime.js";
import { nativeAvailability } from "../runner/proxy-binary.js";
import { waitReady } from "../runner/ready.js";
import type { RunningProcess } from "../runner/runtime.js";
import { buildNativeProxySpec, buildUpstreamSpec, type ProxyContext } from "../runner/specs.js";
import { writeNativeConfigs } from "../runner/proxy-configs.js";
import { ensureUpstream, startUpstream, type StartedUpstream } from "../runner/upstream.js";
import { defaultCpuLayout, parseCpuLayout } from "../runner/cpus.js";
import { coreCount, defaultOutDir } from "../runner/settings.js";
import { UserError } from "../util/errors.js";
import { freePort } from "../util/ports.js";
import {
  DEFAULT_MAX_P99_MS,
  findMaxRate,
  formatMaxRate,
  type MaxRateOptions,
  type MaxRateResult,
  type MaxRateStep,
} from "./max-rate.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";

/**
 * `proxybench run --find-max-rate`: starts the upstream and one proxy (natively, pinned per the
 * CPU layout), then searches the proxy's maximum sustainable rate on a scenario with short
 * k6 constant-arrival-rate steps. Writes `max-rate.json` and every step's raw k6 output to
 * `outDir`.
 */

export interface ProxyMaxRateRequest {
  proxy: string;
  scenario: string;
  cpus: CpuLayout;
  outDir: string;
  /** Seconds per step (default 5) and per warm-up before each step (default 0). */
  stepDurationS?: number;
  warmupS?: number;
  /** The p99 bound of a step that holds (default 50 ms). */
  maxP99Ms?: number;
  search?: Partial<MaxRateOptions>;
  dirs?: ManifestDirs;
  /** The k6 engine (tests may pass their own). */
  engine?: EngineAdapter;
  onStep?: (step: MaxRateStep) => void;
  signal?: AbortSignal;
}

export interface ProxyMaxRateOutcome {
  proxy: string;
  proxyVersion?: string;
  scenario: string;
  maxP99Ms: number;
  stepDurationS: number;
  result: MaxRateResult;
  file: string;
}

export const DEFAULT_STEP_DURATION_S = 5;

export async function findProxyMaxRate(req: ProxyMaxRateRequest): Promise<ProxyMaxRateOutcome> {
  const { proxy, scenario, availability } = await resolveSearch(req);
  const engine = req.engine ?? getEngine("k6");
  await engine.locate();
  const outDir = path.resolve(req.outDir);
  const logs = path.join(outDir, "logs");
  await mkdir(logs, { recursive: true });
  const runtime = new NativeRuntime();
  const started: RunningProcess[] = [];
  try {
    const upstream = await startUpstream(
      runtime,
      buildUpstreamSpec(
        await ensureUpstream(),
        scenario.manifest,
        req.cpus.upstream,
        path.join(logs, "upstream.log"),
      ),
    );
    started.push(upstream.proc);
    const baseUrl =
      availability.kind === "found"
        ? await startSearchedProxy(req, proxy, availability.path, upstream, { runtime, outDir, started })
        : `http://${upstream.host}:${upstream.port}`;
    const stepDurationS = req.stepDurationS ?? DEFAULT_STEP_DURATION_S;
    const maxP99Ms = req.maxP99Ms ?? DEFAULT_MAX_P99_MS;
    const result = await findMaxRate({
      engine,
      scenario: scenario.manifest,
      scenarioDir: scenario.dir,
      baseUrl,
      cpus: req.cpus.loadgen,
      outDir: path.join(outDir, "raw"),
      stepDurationS,
      ...pickDefined(req, ["warmupS"]),
      limits: { maxP99Ms },
      ...pickDefined(req, ["search", "onStep", "signal"]),
    });
    const outcome: ProxyMaxRateOutcome = {
      proxy: req.proxy,
      ...(availability.kind === "found" ? { proxyVersion: availability.version } : {}),
      scenario: req.scenario,
      maxP99Ms,
      stepDurationS,
      result,
      file: path.join(outDir, "max-rate.json"),
    };
    await writeFile(outcome.file, `${JSON.stringify(outcome, null, 2)}\n`);
    return outcome;
  } finally {
    for (const proc of started.reverse()) await proc.stop();
  }
}

/** The proxy and scenario searched, and where the proxy's binary is (the upstream alone for `direct`). */
export async function resolveSearch(req: Pick<ProxyMaxRateRequest, "proxy" | "scenario" | "dirs">) {
  const manifests = await loadManifests(req.dirs ?? {});
  const proxy = manifests.proxies.get(req.proxy);
  if (!proxy) {
    throw new UserError(
      `--proxies: unknown '${req.proxy}' (known: ${[...manifests.proxies.keys()].sort().join(", ")})`,
    );
  }
  const scenario = manifests.scenarios.get(req.scenario);
  if (!scenario) {
    throw new UserError(
      `--scenarios: unknown '${req.scenario}' (known: ${[...manifests.scenarios.keys()].sort().join(", ")})`,
    );
  }
  const availability = await nativeAvailability(proxy);
  if (availability.kind === "image-only") {
    throw new UserError(`--find-max-rate: ${req.proxy} is image only; it cannot run natively here`);
  }
  if (availability.kind === "missing") {
    throw new UserError(
      `--find-max-rate: ${req.proxy}: '${availability.binary}' not found (fix: ${availability.fix})`,
    );
  }
  return { proxy, scenario, availability };
}

/** Renders the proxy's native configs, starts it pinned and waits until it answers; its base URL. */
async function startSearchedProxy(
  req: ProxyMaxRateRequest,
  proxy: LoadedProxy,
  binary: string,
  upstream: StartedUpstream,
  run: { runtime: NativeRuntime; outDir: string; started: RunningProcess[] },
): Promise<string> {
  const workdir = path.join(run.outDir, "work", req.proxy);
  await mkdir(workdir, { recursive: true });
  const ctx: ProxyContext = {
    listenHost: "127.0.0.1",
    listenPort: await freePort(),
    upstreamHost: upstream.host,
    upstreamPort: upstream.port,
    upstreamGrpcPort: upstream.grpcPort,
    cpus: req.cpus.proxy,
    workdir,
    logFile: path.join(run.outDir, "logs", `${req.proxy}.log`),
  };
  await writeNativeConfigs(proxy, ctx);
  const proc = await run.runtime.start(buildNativeProxySpec(proxy, ctx, binary));
  run.started.push(proc);
  const baseUrl = `http://${ctx.listenHost}:${ctx.listenPort}`;
  const notReady = await waitReady(
    `${baseUrl}${proxy.manifest.ready.path}`,
    proxy.manifest.ready.timeoutS,
    proc,
    req.signal,
  );
  if (notReady) {
    throw new UserError(`${req.proxy} ${notReady}; its log (${ctx.logFile}):\n${await logTail(ctx.logFile)}`);
  }
  return baseUrl;
}

/** The outcome as terminal text: the rate, the bound, then every step. */
export function formatProxyMaxRate(o: ProxyMaxRateOutcome): string {
  const unit = "iterations/s";
  return [
    `${o.proxy}${o.proxyVersion ? ` ${o.proxyVersion}` : ""} on ${o.scenario}: p99 <= ${o.maxP99Ms} ms, no error, ` +
      `load generator not the limit, ${o.stepDurationS} s per step`,
    formatMaxRate(o.result, unit),
    `details: ${o.file}`,
  ].join("\n");
}

/** What `proxybench run --find-max-rate` was asked (flags already typed). */
export interface FindMaxRatesRequest {
  proxies: string[];
  scenarios: string[];
  /** The `--cpus` text; default: the runner's layout for this machine's cores. */
  cpus?: string;
  out?: string;
  /** `--duration`: seconds per step; `--warmup`: seconds of warm-up before each step. */
  durationS?: number;
  warmupS?: number;
  /** `--max-p99` in ms (default 50). */
  maxP99Ms?: number;
  proxiesDirs?: string[];
  scenariosDirs?: string[];
}

/**
 * Every proxy x scenario asked for, one search each, one after the other (results in
 * OUT/<proxy>-<scenario>/max-rate.json). Prints each step as it is measured and each outcome.
 */
export async function findMaxRates(
  req: FindMaxRatesRequest,
  deps: {
    stdout?: { write(s: string): unknown };
    stderr?: { write(s: string): unknown };
    cores?: number;
  } = {},
): Promise<ProxyMaxRateOutcome[]> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const cores = deps.cores ?? coreCount();
  const cpus = req.cpus !== undefined ? parseCpuLayout(req.cpus, cores) : defaultCpuLayout(cores).layout;
  const out = path.resolve(req.out ?? defaultOutDir(new Date()));
  const outcomes: ProxyMaxRateOutcome[] = [];
  for (const scenario of req.scenarios) {
    for (const proxy of req.proxies) {
      stderr.write(`find-max-rate: ${proxy} on ${scenario}\n`);
      const outcome = await findProxyMaxRate({
        proxy,
        scenario,
        cpus,
        outDir: path.join(out, `${proxy}-${scenario}`),
        ...withoutUndefined({ stepDurationS: req.durationS, warmupS: req.warmupS, maxP99Ms: req.maxP99Ms }),
        dirs: {
          ...(req.proxiesDirs?.length ? { proxiesDirs: req.proxiesDirs } : {}),
          ...(req.scenariosDirs?.length ? { scenariosDirs: req.scenariosDirs } : {}),
        },
        onStep: (st) =>
          stderr.write(
            `  ${st.phase} ${st.rate}/s: ${st.ok ? "held" : "did not hold"}${st.p99Ms !== undefined ? `, p99 ${st.p99Ms.toFixed(1)} ms` : ""}\n`,
          ),
      });
      stdout.write(`${formatProxyMaxRate(outcome)}\n\n`);
      outcomes.push(outcome);
    }
  }
  return outcomes;
}
