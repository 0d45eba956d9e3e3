import { InstructionsResults } from "../../../src/measures/counted/schema.js";
import {
  Results,
  type Cell,
  type CellStatus,
  type ProxyCost,
  type Repetition,
} from "../../../src/results/schema.js";
import { mulberry32 } from "../../../src/runner/rounds.js";

/** Small builders of valid results for rendering tests (validated by the real schema). */

export interface RepSpec {
  rps: number;
  p50: number;
  status?: CellStatus;
  errors?: number;
  non2xx?: number;
}

function rep(index: number, spec: RepSpec): Repetition {
  const { rps, p50 } = spec;
  return {
    index,
    startedAt: `2026-11-21T13:00:0${index % 10}.000Z`,
    durationS: 10,
    status: spec.status ?? "ok",
    reasons: [],
    rps,
    requests: Math.round(rps * 10),
    errors: spec.errors ?? 0,
    non2xx: spec.non2xx ?? 0,
    checkFailures: 0,
    statusCodes: {},
    droppedIterations: 0,
    latencyMs: {
      min: p50 / 2,
      mean: p50 * 1.1,
      p50,
      p90: p50 * 1.5,
      p95: p50 * 2,
      p99: p50 * 3,
      max: p50 * 10,
    },
    raw: [],
  };
}

export function cell(
  proxy: string,
  reps: RepSpec[],
  options: {
    status?: CellStatus;
    reasons?: string[];
    scenario?: string;
    load?: string;
    variant?: string;
  } = {},
): Cell {
  const scenario = options.scenario ?? "small";
  const load = options.load ?? "default";
  const variant = options.variant;
  return {
    id: `${scenario}/${load}/${proxy}/k6${variant === undefined ? "" : `@${variant}`}`,
    ...(variant === undefined ? {} : { variant }),
    proxy,
    scenario,
    engine: "k6",
    load: { label: load, model: "constant-vus", vus: 10, durationS: 10 },
    status: options.status ?? "ok",
    reasons: options.reasons ?? [],
    runtime: "native",
    tuning: {},
    repetitions: reps.map((r, i) => (variant === undefined ? rep(i, r) : { ...rep(i, r), round: i })),
    logs: [],
  };
}

export function results(cells: Cell[], overrides: Record<string, unknown> = {}): Results {
  const proxies = [...new Set(cells.map((c) => c.proxy))];
  return Results.parse({
    schemaVersion: 1,
    tool: { name: "proxybench", version: "0.1.0" },
    runId: "test-run",
    startedAt: "2026-11-21T13:00:00.000Z",
    settings: {
      proxies,
      scenarios: [...new Set(cells.map((c) => c.scenario))],
      repetitions: Math.max(1, ...cells.map((c) => c.repetitions.length)),
      cpus: { loadgen: [0], proxy: [1], upstream: [1] },
    },
    environment: {
      os: "linux",
      kernel: "6.1.0",
      arch: "x64",
      cpuModel: "Test CPU",
      cores: 2,
      loadAverage: [0.1, 0.2, 0.3],
      node: "v20",
    },
    cells,
    ...overrides,
  });
}

/** A run holding variants (schema 2) of these cells, testing `testedMetrics`; `environment` added to the test machine's. */
export function pairedRun(
  cells: Cell[],
  testedMetrics: string[],
  environment: Record<string, unknown> = {},
): Results {
  const base = results(cells);
  return Results.parse({
    ...base,
    schemaVersion: 2,
    settings: { ...base.settings, testedMetrics },
    environment: { ...base.environment, ...environment },
  });
}

/**
 * A counted run (instructions.json) holding the variants base and head, one nginx cell each,
 * with these instructions per request in each of its rounds (no callgrind files: nothing to show
 * of where the work went). Validated by the real schema.
 */
export function countedRun(instructions: { base: number[]; head: number[] }): InstructionsResults {
  const side = (variant: "base" | "head") => ({
    id: `passthrough/nginx@${variant}`,
    proxy: "nginx",
    variant,
    scenario: "passthrough",
    status: "ok",
    reasons: [],
    repetitions: instructions[variant].map((ir, i) => ({
      index: i,
      round: i,
      variant,
      startedAt: `2026-11-21T13:00:0${i % 10}.000Z`,
      status: "ok",
      reasons: [],
      requests: 200,
      failures: 0,
      statusCodes: { "200": 200 },
      instructionsPerRequest: ir,
      cyclesPerRequest: ir * 1.5,
      events: {},
      wallS: 1,
    })),
  });
  return InstructionsResults.parse({
    schemaVersion: 1,
    measure: "instructions",
    runId: "counted-run",
    startedAt: "2026-11-21T13:00:00.000Z",
    settings: {
      proxies: ["nginx"],
      scenarios: ["passthrough"],
      repetitions: instructions.base.length,
      requests: 200,
      warmupRequests: 20,
      connections: 1,
      cpus: { loadgen: [0], proxy: [1], upstream: [1] },
      valgrind: "valgrind-3.22.0",
      variants: [
        { name: "base", dir: "/w/base" },
        { name: "head", dir: "/w/head" },
      ],
    },
    cells: [side("base"), side("head")],
  });
}

/**
 * `n` rounds of one proxy around `p50` ms (req/s around `rps`) times `factor`: a drift that every
 * proxy of the same round shares (the machine, up to ±drift), and noise of the proxy's own, up to ±noise/2,
 * drawn from `seed` (as two identical proxies measured one after the other in each round).
 */
export function roundsOf(
  n: number,
  options: {
    p50?: number;
    rps?: number;
    factor?: number;
    noise?: number;
    drift?: number;
    seed?: number;
  } = {},
): RepSpec[] {
  const { p50 = 1, rps = 1000, factor = 1, noise = 0.04, seed = 1 } = options;
  const random = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => {
    const drift = 1 + (options.drift ?? 0.1) * Math.sin(i);
    const own = () => 1 + noise * (random() - 0.5);
    return { rps: rps * own(), p50: p50 * factor * drift * own() };
  });
}

/** The proxy's cost of one repetition, as the runner records it (src/measures/wall-clock/proxy-cost.ts). */
function cost(cpuPerRequestUs: number, peakMemoryMiB: number): ProxyCost {
  const requests = 10_000;
  const cpuS = (cpuPerRequestUs * requests) / 1e6;
  return {
    source: "proc",
    cpuS,
    idleCpuS: 0.0002,
    windowS: 10,
    cpuPerRequestUs,
    requestsPerCpuS: requests / cpuS,
    peakMemoryMiB,
    peakSince: "repetition",
  };
}

/** A cell whose repetitions measured the proxy's cost: CPU/request and memory per repetition. */
export function costly(c: Cell, cpu: number[], memory = 12.5): Cell {
  return { ...c, repetitions: c.repetitions.map((r, i) => ({ ...r, proxyCost: cost(cpu[i]!, memory) })) };
}
