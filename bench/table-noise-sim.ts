/**
 * Simulated runs of the cross-proxy tables through the real code (`npm run bench:table-noise --
 * --simulate N`): a run's results.json made up of two proxies (nginx and `nginx-copy`) in two
 * scenarios at the default benchmark's rounds (21), each round's order drawn by the runner's own
 * `roundOrder`, read back by `buildReport` (the tables' family, Holm, min and max shown never
 * compared, steal), exactly as the real runs are. Per repetition every figure is
 * exp(shift + disturbance + the slot's shared noise + the figure's own noise), with the spread
 * measured between nginx and its copy here: the log ratio of a round 15% SD, its latency figures
 * and CPU per request moving together. Two disturbances can be added: a periodic one (period two
 * rounds, a phase drawn per run: a timer, another tenant's job) and a block effect (an offset per
 * proxy and scenario for the whole run, which no order removes). Prints figures; asserts nothing.
 */
import { buildReport } from "../src/report/model.js";
import { Results, type Cell, type Repetition } from "../src/results/schema.js";
import { DEFAULT_REPETITIONS } from "../src/runner/plan.js";
import { mulberry32, roundOrder, type RoundOrder } from "../src/runner/rounds.js";
import { emptyCell, gaussian } from "./ab-simulation.js";

const PROXIES = ["nginx", "nginx-copy"];
const SCENARIOS = ["passthrough", "json-lookup"];
export const SIMULATED_ROUNDS = DEFAULT_REPETITIONS;
/** Per side and slot: shared by the figures, and each figure's own (15% SD for the log ratio). */
const SHARED_SD = 0.13 / Math.SQRT2;
const OWN_SD = 0.075 / Math.SQRT2;
const START_MS = Date.parse("2026-11-28T00:00:00.000Z");
const LOAD = { label: "default", model: "constant-arrival-rate" as const, rate: 1000, vus: 32, durationS: 1 };
/** A repetition's requests, and its slot with the 1 s warm-up before it. */
const REQUESTS = LOAD.rate * LOAD.durationS;
const SLOT_MS = (LOAD.durationS + 1) * 1000;

export interface SimulatedCase {
  order: RoundOrder;
  /** Amplitude (log) of a disturbance with a period of two rounds; 0: none. */
  periodic?: number;
  /** SD (log) of a proxy's offset for a whole block; 0: none. */
  blockSd?: number;
  /** The copy's p50 (and mean) in the first scenario this many % above nginx's. */
  shiftPct?: number;
}

type Random = () => number;

/** One repetition whose figures are `base` times each figure's own noise. */
function repetition(round: number, slot: number, base: number, cpu: number, random: Random): Repetition {
  const own = () => Math.exp(gaussian(random) * OWN_SD);
  return {
    index: round,
    round,
    startedAt: new Date(START_MS + slot * SLOT_MS).toISOString(),
    durationS: LOAD.durationS,
    status: "ok",
    reasons: [],
    noise: { otherCpu: 0, steal: 0 },
    rps: LOAD.rate,
    requests: REQUESTS,
    errors: 0,
    non2xx: 0,
    checkFailures: 0,
    statusCodes: { "200": REQUESTS },
    droppedIterations: 0,
    latencyMs: {
      min: 0.05 * base * own(),
      mean: 0.16 * base * own(),
      p50: 0.13 * base * own(),
      p90: 0.2 * base * own(),
      p95: 0.25 * base * own(),
      p99: 0.5 * base * own(),
      max: 4 * base * own(),
    },
    proxyCost: {
      source: "proc",
      cpuS: (cpu * REQUESTS) / 1e6,
      idleCpuS: 0,
      windowS: LOAD.durationS,
      cpuPerRequestUs: cpu,
      requestsPerCpuS: 1e6 / cpu,
      peakMemoryMiB: 14.2 * Math.exp(gaussian(random) * 0.005),
      peakSince: "repetition",
    },
    raw: [],
  };
}

/** One scenario's block: both proxies in rounds of the case's order, each slot's value drawn. */
function block(scenario: string, c: SimulatedCase, seed: number, random: Random): Cell[] {
  const cells = PROXIES.map((p): Cell => ({ ...emptyCell(p, scenario), load: LOAD }));
  const offsets = cells.map(() => gaussian(random) * (c.blockSd ?? 0));
  const phase = 2 * Math.PI * random();
  for (const [slot, { cell, round }] of roundOrder(cells, SIMULATED_ROUNDS, c.order, seed).entries()) {
    const i = cells.indexOf(cell);
    const shift = i === 1 && scenario === SCENARIOS[0] ? Math.log(1 + (c.shiftPct ?? 0) / 100) : 0;
    const periodic = (c.periodic ?? 0) * Math.cos((Math.PI * slot) / 2 + phase);
    const level = offsets[i]! + periodic + gaussian(random) * SHARED_SD;
    const rep = repetition(round, slot, Math.exp(level + shift), 50 * Math.exp(level), random);
    cell.repetitions.push(rep);
  }
  return cells;
}

function simulatedResults(c: SimulatedCase, seed: number, random: Random): Results {
  const cells = SCENARIOS.flatMap((s, i) => block(s, c, seed * 2 + i, random));
  return Results.parse({
    schemaVersion: 2,
    tool: { name: "proxybench", version: "0.1.0" },
    runId: `simulated-${seed}`,
    startedAt: new Date(START_MS).toISOString(),
    settings: {
      proxies: PROXIES,
      scenarios: SCENARIOS,
      repetitions: SIMULATED_ROUNDS,
      cpus: { loadgen: [0], proxy: [1], upstream: [1] },
      roundOrder: c.order,
      ...(c.order === "random" ? { seed } : {}),
    },
    environment: {
      os: "linux",
      kernel: "6.1.0",
      arch: "x64",
      cpuModel: "simulated",
      cores: 2,
      node: "v22",
      loadAverage: [0, 0, 0],
    },
    cells,
  });
}

/** Of `runs` simulated runs of this case: how many showed any change of the copy as real, and its p50's. */
export function simulateTables(c: SimulatedCase, runs: number, seed = 1): { any: number; p50: number } {
  // every run draws from one stream, so a case is the same figures on every machine
  const random = mulberry32(seed);
  let any = 0;
  let p50 = 0;
  for (let k = 0; k < runs; k++) {
    const groups = buildReport(simulatedResults(c, seed * 100_000 + k, random)).groups;
    const changes = groups.map((g) => g.columns.find((col) => col.proxy === PROXIES[1])?.changes ?? {});
    if (changes.some((ch) => Object.values(ch).some((d) => d.differs))) any += 1;
    if (changes[0]?.p50?.differs === true) p50 += 1;
  }
  return { any, p50 };
}
