/**
 * Validity benchmark of the verdict (`npm run bench:ab`). Prints figures; asserts nothing.
 *
 * First, simulated comparisons through the real code (bench/ab-simulation.ts): the 8-cell pull
 * request comparison (direct, nginx, haproxy, caddy x passthrough, json-lookup) at the
 * recommended defaults (`--repetitions auto --budget 10`, 1 s repetitions): A/A false alarms,
 * power for +10% and +20% on one cell's p50 (and +10% on its CPU per request), the sequential
 * rule's false alarms with three looks, and unpaired A/A of two runs. Then real runs:
 * - `--unpaired N`: two nginx runs one after the other, compared as two runs (no verdict
 *   without a history: 0 of N must carry one);
 * - `--real-pr N`: the real 8-cell A/A (bench/ab-real-pr.ts), its rounds and time to a verdict;
 *   `--lock FILE` runs each of its shards under `flock FILE`;
 * - the former rows, each one variant run of nginx on a small scenario (the built-in upstream
 * with 10 ms of latency, k6 at 200 requests/s), base and head interleaved in rounds at the
 * default settings, then `compareVariants`:
 * - A/A, quiet: base and head identical; a `regressed` or `improved` on any metric of the cell
 *   is a false alarm;
 * - A/A with a noisy neighbour: a busy loop pinned to the proxy's core while the head measures,
 *   in every other round, started outside this process's tree as another tenant's would be
 *   (bench/neighbour.ts); it must be caught (the cell `noisy`), never a verdict;
 * - power: head's upstream +10% latency at the default threshold, and +5% with --threshold 2;
 *   found when p50 is `regressed`.
 * Rates come with 95% Wilson intervals. Last, the time of one interleaved A/B against the same
 * repetitions run one variant after the other.
 *
 *   npm run bench:ab -- [--simulate N] [--unpaired N] [--real-pr N [--lock FILE] [--budget MIN]]
 *                       [--aa N] [--noisy N] [--power N]
 *   (defaults 2000, 10, 0, 10; 0, 0, 0)
 *
 * Bounded: the simulation takes about a minute per thousand comparisons, an unpaired pair about
 * 30 s, a real 8-cell comparison at most twice its budget, the former rows about 25 s each.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as engines from "../src/engines/index.js";
import { compareVariants, type Comparison } from "../src/report/compare.js";
import type { Results } from "../src/results/schema.js";
import type { RunDeps } from "../src/measures/wall-clock/context.js";
import { runBenchmark } from "../src/measures/wall-clock/run.js";
import type { RunRequest } from "../src/runner/settings.js";
import { PROJECT_ROOT } from "../src/util/paths.js";
import { defaultPlan, familySize, oneVariant, simulateRun, type Change } from "./ab-simulation.js";
import { realPullRequest } from "./ab-real-pr.js";
import { startNeighbour, type Neighbour } from "./neighbour.js";
import { compareResults } from "../src/report/compare.js";
import { mulberry32 } from "../src/runner/rounds.js";
import { planLooks, type SequentialPlan } from "../src/stats/sequential.js";
import { rate } from "./rates.js";

const BASE_LATENCY_MS = 10;
const RATE = 200;
const DURATION_S = 1;
const WARMUP_S = 1;
const cores = os.availableParallelism();
const CPUS = cores >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
const PROXY_CORE = cores >= 2 ? "1" : "0";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i < 0 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number`);
  return value;
}

/** A variant folder holding the `ab` scenario with this upstream latency. */
async function variantDir(root: string, name: string, latencyMs: number): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, "scenarios", "ab"), { recursive: true });
  const script = path.join(PROJECT_ROOT, "scenarios", "passthrough", "script.js");
  const yaml = [
    "name: ab",
    "description: GET /api/values behind a fixed upstream latency, at a fixed rate.",
    `script: ${JSON.stringify(script)}`,
    "requests:",
    "  - path: /api/values",
    "upstream:",
    `  latencyMs: ${latencyMs}`,
    "check:",
    "  status: [200]",
    `  bodyEquals: '["value1","value2"]'`,
    "loads:",
    "  - label: default",
    "    model: constant-arrival-rate",
    `    rate: ${RATE}`,
    "    vus: 8",
    "",
  ].join("\n");
  await writeFile(path.join(dir, "scenarios", "ab", "scenario.yml"), yaml);
  return dir;
}

async function runQuiet(req: RunRequest, extra: Partial<RunDeps> = {}): Promise<Results> {
  const sink = { write: () => true };
  const outcome = await runBenchmark(
    { proxies: ["nginx"], scenarios: ["ab"], durationS: DURATION_S, warmupS: WARMUP_S, cpus: CPUS, ...req },
    { engines, stderr: sink, stdout: sink, handleSignals: false, ...extra },
  );
  return outcome.results;
}

/** A neighbour: a busy loop on the proxy's core while the head measures in even rounds. */
function neighbour(): Partial<RunDeps> {
  let loop: Neighbour | undefined;
  return {
    onMeasure: (e) => {
      if (e.phase === "start" && e.variant === "head" && e.round % 2 === 0) {
        loop = startNeighbour(PROXY_CORE, 30);
      } else if (e.phase === "end") {
        loop?.stop();
        loop = undefined;
      }
    },
  };
}

interface Outcome {
  comparison: Comparison;
  results: Results;
}

async function comparison(
  root: string,
  head: string,
  thresholdPct: number | undefined,
  extra: Partial<RunDeps> = {},
): Promise<Outcome> {
  const out = await mkdtemp(path.join(root, "run-"));
  await rm(out, { recursive: true });
  const results = await runQuiet(
    {
      out,
      variants: [
        { name: "base", dir: path.join(root, "base") },
        { name: "head", dir: path.join(root, head) },
      ],
    },
    extra,
  );
  return {
    results,
    comparison: compareVariants(results, thresholdPct === undefined ? {} : { thresholdPct }),
  };
}

const falseVerdict = (c: Comparison) => c.counts.regressed + c.counts.improved > 0;
const p50Regressed = (c: Comparison) =>
  c.cells[0]?.metrics.find((m) => m.metric === "p50")?.verdict === "regressed";

async function series(
  label: string,
  n: number,
  once: () => Promise<Outcome>,
  counted: (o: Outcome) => boolean,
): Promise<void> {
  if (n === 0) return;
  let k = 0;
  let redone = 0;
  let noisy = 0;
  for (let i = 0; i < n; i++) {
    const o = await once();
    if (counted(o)) k += 1;
    const cells = o.results.cells;
    redone += cells.reduce((sum, c) => sum + (c.redone?.noisy ?? 0) + (c.redone?.dropped ?? 0), 0);
    noisy += cells.filter((c) => c.status !== "ok").length;
    const p50 = o.comparison.cells[0]?.metrics.find((m) => m.metric === "p50");
    const statuses = cells.map((c) => c.status).join("/");
    console.log(
      `  ${label} ${i + 1}/${n}: ${o.comparison.counts.regressed} regressed, ${o.comparison.counts.improved} improved; p50 ${p50?.hlChangePct?.toFixed(2) ?? "n/a"}% ${p50?.verdict ?? "not compared"}; cells ${statuses}`,
    );
  }
  console.log(`${rate(label, k, n)}; repetitions redone ${redone}; cells not ok ${noisy}`);
}

async function timing(root: string): Promise<void> {
  const rounds = 10;
  let t = performance.now();
  await comparison(root, "aa", undefined);
  const interleaved = (performance.now() - t) / 1000;
  t = performance.now();
  for (const v of ["base", "aa"]) {
    const out = await mkdtemp(path.join(root, "seq-"));
    await rm(out, { recursive: true });
    await runQuiet({ out, repetitions: rounds, scenariosDirs: [path.join(root, v, "scenarios")] });
  }
  const sequential = (performance.now() - t) / 1000;
  console.log(
    `cost: interleaved A/B of ${rounds} rounds ${interleaved.toFixed(1)} s, the same repetitions run one variant after the other ${sequential.toFixed(1)} s: ratio ${(interleaved / sequential).toFixed(3)}`,
  );
}

const NGINX_CELL = "passthrough/default/nginx/k6";

function nginxVerdict(c: Comparison, metric: string): string | undefined {
  const cell = c.cells.find((x) => `${x.scenario}/${x.loadLabel}/${x.proxy}/${x.engine}` === NGINX_CELL);
  return cell?.metrics.find((x) => x.metric === metric)?.verdict;
}

/** n simulated comparisons under a plan: how often `found`, and the rounds a block took. */
function simulateRow(
  label: string,
  n: number,
  run: { plan: SequentialPlan; random: () => number; change?: Change },
  found: (c: Comparison) => boolean,
): void {
  let k = 0;
  let rounds = 0;
  for (let i = 0; i < n; i++) {
    const o = simulateRun(run.plan, run.random, run.change);
    if (found(o.comparison)) k += 1;
    rounds += o.rounds.reduce((a, b) => a + b, 0) / o.rounds.length;
  }
  console.log(`  ${rate(label, k, n)}; rounds per block ${(rounds / n).toFixed(1)}`);
}

/** The simulated rows: the 8-cell comparison at the recommended defaults, through the real code. */
function simulated(n: number): void {
  if (n === 0) return;
  const random = mulberry32(24);
  const m = familySize(random);
  const plan = defaultPlan(m, 10);
  const looks = (p: SequentialPlan) =>
    p.looks.map((l) => `${l.rounds} rounds (alpha ${l.alpha.toPrecision(2)})`).join(", ");
  console.log(
    `simulated 8-cell comparisons, --repetitions auto --budget 10 at 1 s repetitions: ${m} tested metrics; looks at ${looks(plan)}`,
  );
  const p50 = (c: Comparison) => nginxVerdict(c, "p50") === "regressed";
  simulateRow("A/A, any regressed/improved", n, { plan, random }, falseVerdict);
  for (const f of [1.1, 1.2]) {
    const change = { cell: NGINX_CELL, factors: { p50: f, mean: f } };
    simulateRow(
      `+${Math.round((f - 1) * 100)}% p50 and mean on nginx passthrough, p50 regressed`,
      n,
      { plan, random, change },
      p50,
    );
  }
  const cpu = { cell: NGINX_CELL, factors: { cpu: 1.1 } };
  simulateRow(
    "+10% CPU per request on nginx passthrough, regressed",
    n,
    { plan, random, change: cpu },
    (c) => nginxVerdict(c, "cpuPerRequest") === "regressed",
  );
  const three = planLooks({ alpha: 0.05, tests: m, maxRounds: 28, maxLooks: 3 });
  console.log(`  the sequential rule with a 20-minute budget: looks at ${looks(three)}`);
  simulateRow("A/A with three looks, any regressed/improved", n, { plan: three, random }, falseVerdict);
  const plus20 = { cell: NGINX_CELL, factors: { p50: 1.2, mean: 1.2 } };
  simulateRow("+20% p50 with three looks, p50 regressed", n, { plan: three, random, change: plus20 }, p50);
  let k = 0;
  const pairs = Math.min(n, 500);
  for (let i = 0; i < pairs; i++) {
    // two runs at different times: each its own drift of the whole run (up to ±15%)
    const a = oneVariant(simulateRun(plan, random).results, "base", 1 + (random() - 0.5) * 0.3);
    const b = oneVariant(simulateRun(plan, random).results, "base", 1 + (random() - 0.5) * 0.3);
    if (falseVerdict(compareResults(a, b))) k += 1;
  }
  console.log(`  ${rate("unpaired A/A of two simulated runs, any regressed/improved", k, pairs)}`);
}

/** Two runs of nginx one after the other, compared as two runs: no verdict without a history. */
async function unpairedRows(root: string, n: number): Promise<void> {
  if (n === 0) return;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const runs: Results[] = [];
    for (const side of ["a", "b"]) {
      const out = path.join(root, `unpaired-${i}-${side}`);
      // the statistics, not the machine's quiet: other work on this shared machine is measured
      const scenariosDirs = [path.join(root, "base", "scenarios")];
      runs.push(await runQuiet({ out, repetitions: 5, noiseLimit: 2, scenariosDirs }));
    }
    const c = compareResults(runs[0]!, runs[1]!);
    if (falseVerdict(c)) k += 1;
    const p50 = c.cells[0]?.metrics.find((m) => m.metric === "p50");
    console.log(
      `  unpaired A/A ${i + 1}/${n}: ${c.counts.regressed} regressed, ${c.counts.improved} improved; p50 observed ${p50?.changePct?.toFixed(2) ?? "n/a"}% ${p50?.verdict ?? "not compared"}`,
    );
  }
  console.log(rate("unpaired A/A of two real runs, any regressed/improved", k, n));
}

/** The real 8-cell A/A comparisons: verdicts, rounds and time to the verdict. */
async function realPrRows(n: number): Promise<void> {
  const lockAt = process.argv.indexOf("--lock");
  const lock = lockAt < 0 ? undefined : process.argv[lockAt + 1];
  const budget = flag("--budget", 10);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const o = await realPullRequest(budget, lock);
    if (falseVerdict(o.comparison)) k += 1;
    const c = o.comparison.counts;
    console.log(
      `  real 8-cell A/A ${i + 1}/${n}: ${o.comparison.tests} tests, ${c.regressed} regressed, ${c.improved} improved, ${c.unchanged} unchanged, ${c.inconclusive} inconclusive, ${o.comparison.notCompared.length} not compared; rounds ${JSON.stringify(o.rounds)}; ${o.seconds.toFixed(0)} s to the verdict${o.notOk.length ? `; not ok: ${o.notOk.join(", ")}` : ""}`,
    );
  }
  if (n > 0) console.log(rate("real 8-cell A/A, any regressed/improved", k, n));
}

async function main(): Promise<void> {
  simulated(flag("--simulate", 2000));
  await realPrRows(flag("--real-pr", 0));
  const aa = flag("--aa", 0);
  const noisy = flag("--noisy", 0);
  const power = flag("--power", 0);
  const root = await mkdtemp(path.join(os.tmpdir(), "proxybench-ab-"));
  try {
    await variantDir(root, "base", BASE_LATENCY_MS);
    await variantDir(root, "aa", BASE_LATENCY_MS);
    await variantDir(root, "plus5", BASE_LATENCY_MS * 1.05);
    await variantDir(root, "plus10", BASE_LATENCY_MS * 1.1);
    console.log(
      `verdict validity: nginx, upstream ${BASE_LATENCY_MS} ms, ${RATE} req/s, ${DURATION_S} s repetitions, default rounds; ${cores} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    await unpairedRows(root, flag("--unpaired", 10));
    await series(
      "A/A false alarms (quiet)",
      aa,
      () => comparison(root, "aa", undefined),
      (o) => falseVerdict(o.comparison),
    );
    await series(
      "A/A false alarms (noisy neighbour on the head)",
      noisy,
      () => comparison(root, "aa", undefined, neighbour()),
      (o) => falseVerdict(o.comparison),
    );
    await series(
      "power, +10% latency, threshold 5%",
      power,
      () => comparison(root, "plus10", undefined),
      (o) => p50Regressed(o.comparison),
    );
    await series(
      "power, +5% latency, threshold 2%",
      power,
      () => comparison(root, "plus5", 2),
      (o) => p50Regressed(o.comparison),
    );
    if (aa + noisy + power > 0) await timing(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
