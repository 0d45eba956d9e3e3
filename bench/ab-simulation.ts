/**
 * Simulated comparisons through the real code (`npm run bench:ab -- --simulate N`): synthetic
 * variant runs of 8 cells (direct, nginx, haproxy, caddy x passthrough, json-lookup, at a fixed
 * arrival rate), the runner's stopping rule at every planned look (`decideAtLook`, as
 * src/measures/wall-clock/block.ts calls it) and `compareVariants` on what it kept. Per round and cell the
 * paired log ratio head/base of each metric has the spread measured on this machine: p50 and
 * mean 9-20%, p99 30-65%, CPU per request 6%, peak memory 2% (one round in 20 three times
 * wider, as a disturbed repetition is), around a drift shared by both variants of a round.
 * Prints figures; asserts nothing.
 */
import { cellKey, type Cell, type Repetition, type Results } from "../src/results/schema.js";
import { compareVariants, type Comparison } from "../src/report/compare.js";
import { decideAtLook } from "../src/measures/wall-clock/block.js";
import { planLooks, type SequentialPlan } from "../src/stats/sequential.js";
import type { CompareMetric } from "../src/stats/tested-metrics.js";

const PROXIES = ["direct", "nginx", "haproxy", "caddy"];
const SCENARIOS = ["passthrough", "json-lookup"];
const LOAD = { label: "default", model: "constant-arrival-rate" as const, rate: 1000, vus: 32, durationS: 1 };

type Random = () => number;

export function gaussian(random: Random): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** One round's noise of a side: half the paired variance, one round in 20 three times wider. */
function noise(random: Random, pairedSd: number): number {
  const wide = random() < 0.05 ? 3 : 1;
  return gaussian(random) * (pairedSd / Math.SQRT2) * wide;
}

interface Spreads {
  p50: number;
  mean: number;
  p99: number;
  cpu: number;
  memory: number;
}

function drawSpreads(random: Random): Spreads {
  const p50 = 0.09 + 0.11 * random();
  return { p50, mean: Math.min(0.2, p50 * 1.1), p99: 0.3 + 0.35 * random(), cpu: 0.06, memory: 0.02 };
}

/** A change of the head: which cell, and the factor on each metric. */
export interface Change {
  cell: string;
  factors: Partial<Record<keyof Spreads, number>>;
}

/**
 * How a simulated run is compared: the tested metrics (absent: every metric, as runs before the
 * setting), --target, and how peak memory is read: `process`, each round a process of its own
 * (--proxy-lifetime round); `running-max`, a container's peak never reset, one process for every
 * round (recorded as such: shown, never tested); `running-max-untagged`, the same maximum
 * recorded without saying so (how it was tested before).
 */
export interface SimulationOptions {
  tested?: CompareMetric[];
  targetPct?: number;
  memory?: "process" | "running-max" | "running-max-untagged";
  /**
   * Chance that a repetition falls in a slow episode of the machine: its CPU per request 1.9-2.8
   * times and its p99 1.7 times the usual, with no steal and no other process to show for it (8 of
   * 444 repetitions of three real runs here, 2026-12-02, in bursts of a few seconds).
   */
  episodes?: number;
  /** The matrix (default: direct, nginx, haproxy, caddy x passthrough, json-lookup). */
  proxies?: readonly string[];
  scenarios?: readonly string[];
}

/** A side's figures in a slow episode, with the chance `options.episodes`. */
function slowEpisode(v: Record<keyof Spreads, number>, random: Random, options: SimulationOptions) {
  if (options.episodes === undefined || random() >= options.episodes) return;
  v.cpu *= 1.9 + 0.9 * random();
  v.p99 *= 1.7;
}

function repetition(
  round: number,
  values: Record<keyof Spreads, number>,
  proxied: boolean,
  peakSince?: "process" | "start",
): Repetition {
  const p50 = values.p50;
  const rep = {
    index: round,
    round,
    startedAt: "2026-11-26T00:00:00.000Z",
    durationS: 1,
    status: "ok",
    reasons: [],
    rps: 1000,
    requests: 1000,
    errors: 0,
    non2xx: 0,
    checkFailures: 0,
    statusCodes: {},
    droppedIterations: 0,
    latencyMs: {
      min: p50 / 2,
      mean: values.mean,
      p50,
      p90: p50 * 1.5,
      p95: p50 * 2,
      p99: values.p99,
      max: values.p99 * 3,
    },
    raw: [],
    // the proxy's own cost (none for direct: no proxy)
    ...(proxied ? { proxyCpu: values.cpu / 1000 } : {}),
    ...((proxied
      ? {
          proxyCost: {
            source: "proc",
            cpuS: values.cpu / 1e6,
            idleCpuS: 0,
            windowS: 1,
            cpuPerRequestUs: values.cpu,
            requestsPerCpuS: 1e6 / values.cpu,
            peakMemoryMiB: values.memory,
            ...(peakSince ? { peakSince } : {}),
          },
        }
      : {}) as object),
  };
  return rep as Repetition;
}

/** A cell of a simulated run with no repetition yet; a variant's when `variant` is given. */
export function emptyCell(proxy: string, scenario: string, variant?: string): Cell {
  return {
    id: `${scenario}/default/${proxy}/k6${variant === undefined ? "" : `@${variant}`}`,
    ...(variant === undefined ? {} : { variant }),
    proxy,
    scenario,
    engine: "k6",
    load: LOAD,
    status: "ok",
    reasons: [],
    runtime: "native",
    tuning: {},
    repetitions: [],
    logs: [],
  };
}

const TRUE_VALUES: Record<keyof Spreads, number> = { p50: 0.5, mean: 0.6, p99: 2, cpu: 30, memory: 12 };

/** Fills one round of a base cell and its head twin. */
function fillRound(
  base: Cell,
  head: Cell,
  round: number,
  spreads: Spreads,
  change: Change | undefined,
  random: Random,
  options: SimulationOptions,
) {
  const { memory } = options;
  const drift = gaussian(random) * 0.1;
  const side = (factors: Partial<Record<keyof Spreads, number>>) => {
    const v = {} as Record<keyof Spreads, number>;
    for (const k of Object.keys(TRUE_VALUES) as Array<keyof Spreads>) {
      v[k] = TRUE_VALUES[k] * (factors[k] ?? 1) * Math.exp(drift + noise(random, spreads[k]));
    }
    slowEpisode(v, random, options);
    return v;
  };
  const proxied = base.proxy !== "direct";
  const since = memory === "running-max" ? "start" : memory === "process" ? "process" : undefined;
  const values = [side({}), side(change && cellKey(head) === change.cell ? change.factors : {})];
  [base, head].forEach((cell, i) => {
    const v = values[i]!;
    // a peak never reset: the highest of every round so far
    const last = cell.repetitions.at(-1)?.proxyCost?.peakMemoryMiB;
    if (memory?.startsWith("running-max") && last !== undefined) v.memory = Math.max(v.memory, last);
    cell.repetitions.push(repetition(round, v, proxied, since));
  });
}

function runOf(cells: Cell[], plan: SequentialPlan, tested?: CompareMetric[]): Results {
  return {
    schemaVersion: 3,
    tool: { name: "proxybench", version: "0.1.0" },
    runId: "simulated",
    startedAt: "2026-11-26T00:00:00.000Z",
    settings: {
      proxies: PROXIES,
      scenarios: SCENARIOS,
      repetitions: plan.looks[plan.looks.length - 1]!.rounds,
      cpus: { loadgen: [0], proxy: [1], upstream: [1] },
      runtime: "native",
      variants: [
        { name: "base", dir: "/base" },
        { name: "head", dir: "/head" },
      ],
      sequential: plan,
      ...(tested ? { testedMetrics: tested } : {}),
    },
    environment: {
      os: "linux",
      kernel: "6",
      arch: "x64",
      cpuModel: "sim",
      cores: 2,
      loadAverage: [0, 0, 0],
      node: "v20",
      git: {},
    },
    skipped: [],
    cells,
  } as unknown as Results;
}

/**
 * One simulated variant run: per block (scenario), rounds until the runner's rule stops it at a
 * look or the plan's last look, then the comparison. Returns it and the rounds each block took.
 */
export function simulateRun(
  plan: SequentialPlan,
  random: Random,
  change?: Change,
  options: SimulationOptions = {},
): { comparison: Comparison; results: Results; rounds: number[] } {
  const cells: Cell[] = [];
  const rounds: number[] = [];
  const last = plan.looks[plan.looks.length - 1]!.rounds;
  for (const scenario of options.scenarios ?? SCENARIOS) {
    const pairs = (options.proxies ?? PROXIES).map((p) => ({
      base: emptyCell(p, scenario, "base"),
      head: emptyCell(p, scenario, "head"),
      spreads: drawSpreads(random),
    }));
    const decided = new Set<string>();
    let done = 0;
    while (done < last) {
      for (const p of pairs) fillRound(p.base, p.head, done, p.spreads, change, random, options);
      done += 1;
      const blockCells = pairs.flatMap((p) => [p.base, p.head]);
      const look =
        done < last
          ? decideAtLook(
              blockCells,
              {
                plan,
                variants: ["base", "head"],
                ...(options.tested ? { tested: options.tested } : {}),
                ...(options.targetPct !== undefined ? { targetPct: options.targetPct } : {}),
              },
              done,
              decided,
            )
          : undefined;
      if (look?.stop) break;
    }
    rounds.push(done);
    for (const p of pairs) cells.push(p.base, p.head);
  }
  const results = runOf(cells, plan, options.tested);
  return { comparison: compareVariants(results), results, rounds };
}

/** One variant's cells of a run as a run of their own (no variants), its latencies times `drift`. */
export function oneVariant(results: Results, variant: string, drift: number): Results {
  const cells = results.cells
    .filter((c) => c.variant === variant)
    .map((c) => {
      const own: Cell = { ...c, id: c.id.replace(/@.*$/, "") };
      delete own.variant;
      own.repetitions = c.repetitions.map((r) => ({
        ...r,
        latencyMs: {
          ...r.latencyMs,
          mean: r.latencyMs.mean * drift,
          p50: r.latencyMs.p50 * drift,
          p99: r.latencyMs.p99 * drift,
        },
      }));
      return own;
    });
  const settings = { ...results.settings };
  delete settings.variants;
  delete settings.sequential;
  return { ...results, settings, cells };
}

/** The plan `--repetitions auto --budget MIN` makes for the 8 cells at 1 s repetitions (runner's estimates). */
export function defaultPlan(tests: number, budgetMinutes: number): SequentialPlan {
  const cells = PROXIES.length * SCENARIOS.length * 2;
  const perRound = cells * (1 + 1.5);
  const fixed = cells * (2 + 3);
  const maxRounds = Math.max(1, Math.floor((budgetMinutes * 60 - fixed) / perRound));
  return planLooks({ alpha: 0.05, tests, maxRounds });
}

/** The tested metrics of the 8 cells, as compare counts them. */
export function familySize(random: Random): number {
  const plan = planLooks({ alpha: 0.05, tests: 1, maxRounds: 6 });
  return simulateRun(plan, random).comparison.tests;
}
