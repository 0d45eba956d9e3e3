/**
 * Does the wall clock decide? (`npm run bench:decide`). Prints figures; asserts nothing.
 *
 * Simulated, through the real code (the runner's stopping rule at each planned look and
 * `compareVariants`, bench/ab-simulation.ts), the 8-cell pull request at the defaults of a variant
 * run (`-r auto` within 15 minutes at 1 s repetitions, --target 10, CPU per request and p99
 * tested): the A/A rate of any `regressed`/`improved`, how often +12% CPU per request on nginx is
 * found (also with 2% of the repetitions in a slow episode of the machine, their CPU per request
 * 1.9-2.8 times, as real runs here show), and the docker memory path's A/A with every metric
 * tested: a peak never reset recorded as such (shown, never tested), the same maximum recorded
 * without saying so (how it was tested before), and a peak per process (`--proxy-lifetime round`).
 *
 * Real runs on this machine, each a `proxybench run --variant base=B --variant head=H` at the
 * CLI's defaults for a variant run (bench.yml's: rounds auto within a budget, --target 10, the
 * primary metrics tested, every proxy started anew each round), for each case and matrix:
 * - aa: base and head the same built-in manifests;
 * - xtrace: head's nginx adds `proxy_set_header X-Trace $request_id;`;
 * - kernel: head's nginx keeps no upstream connection alive (no `keepalive` in its upstream
 *   block): a TCP connect, accept and close per request, work the kernel does and the counted
 *   run (nginx's own instructions under Valgrind) hardly sees;
 * matrices: `two` (nginx, haproxy x passthrough) and `pr` (direct, nginx, haproxy, caddy x
 * passthrough, json-lookup). Per run: how nginx's CPU per request was judged in each scenario, its
 * estimate, the rounds, the wall time to the verdict, nginx's paired spread a round (the SD and its
 * robust counterpart), and the steal (nginx's CPU per request in repetitions with
 * steal above the limit and in the others); an A/A also any `regressed`/`improved` and, with every
 * metric tested, how many had p < 0.01. Per case: how often nginx's CPU per request was decided
 * (and found regressed), runs with no CPU per request compared, the times to a verdict.
 *
 *   npm run bench:decide -- [--simulate N] [--runs N] [--cases aa,xtrace,kernel]
 *                           [--matrices two,pr] [--duration S] [--warmup S] [--budget MIN]
 *                           [--lock FILE] [--keep DIR]
 *   npm run bench:decide -- --reread DIR
 *   (defaults 1000, 1, all cases, two; the scenarios' own duration and warm-up; 15; none:
 *   with --lock each run holds `flock FILE`, so other locked benchmarks wait for it; the system's
 *   temporary folder). Each run is kept in a folder of its own under --keep, its results and a
 *   decide.json (case, matrix, time, exit code); `--reread DIR` counts every run kept under DIR
 *   again, by case and matrix, runs of earlier sessions included.
 *
 * Bounded: the simulation takes about a minute per thousand runs; a real run at most its budget
 * plus its warm-ups.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { medianAbsoluteDeviation, sampleStandardDeviation } from "simple-statistics";
import { compareVariants, type Comparison } from "../src/report/compare.js";
import { readResults } from "../src/results/io.js";
import type { Results } from "../src/results/schema.js";
import { mulberry32 } from "../src/runner/rounds.js";
import { planLooks, type SequentialPlan } from "../src/stats/sequential.js";
import { stealOf, stealRuleOf } from "../src/stats/steal.js";
import { ALL_METRICS, PRIMARY_METRICS } from "../src/stats/tested-metrics.js";
import { command } from "./ab-real-pr.js";
import { defaultPlan, simulateRun, type SimulationOptions } from "./ab-simulation.js";
import { nginxVariant, X_TRACE } from "./nginx-variant.js";
import { rate } from "./rates.js";

const CASES = ["aa", "xtrace", "kernel"] as const;
type Case = (typeof CASES)[number];
const MATRICES = {
  two: { proxies: "nginx,haproxy", scenarios: "passthrough" },
  pr: { proxies: "direct,nginx,haproxy,caddy", scenarios: "passthrough,json-lookup" },
} as const;
type Matrix = keyof typeof MATRICES;

const USAGE = `usage: npm run bench:decide -- [--simulate N] [--runs N] [--cases aa,xtrace,kernel]
         [--matrices two,pr] [--duration S] [--warmup S] [--budget MIN] [--lock FILE] [--keep DIR]
       npm run bench:decide -- --reread DIR`;

/** The command line, strict: an unknown flag or a flag without its value is refused, with the usage. */
function readFlags() {
  try {
    return parseArgs({
      options: {
        simulate: { type: "string", default: "1000" },
        runs: { type: "string", default: "1" },
        cases: { type: "string" },
        matrices: { type: "string" },
        duration: { type: "string" },
        warmup: { type: "string" },
        budget: { type: "string" },
        lock: { type: "string" },
        keep: { type: "string" },
        reread: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    console.error(`bench:decide: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}
const FLAGS = readFlags();

function count(name: "simulate" | "runs"): number {
  const value = Number(FLAGS[name]);
  if (!/^\d+$/.test(FLAGS[name]) || !Number.isInteger(value)) {
    throw new Error(`--${name}: expected a whole number, got '${FLAGS[name]}'`);
  }
  return value;
}

function list<T extends string>(
  name: "cases" | "matrices",
  known: readonly T[],
  fallback: readonly T[],
): T[] {
  const asked = (FLAGS[name]?.split(",") ?? fallback) as T[];
  const unknown = asked.find((a) => !known.includes(a));
  if (unknown) throw new Error(`--${name}: unknown '${unknown}' (known: ${known.join(", ")})`);
  return asked;
}

function falseAlarm(c: Comparison): boolean {
  return c.counts.regressed + c.counts.improved > 0;
}

/** nginx's CPU per request in one scenario: its verdict and estimate. */
interface NginxCpu {
  scenario: string;
  verdict: string;
  estimatePct?: number;
}

/** nginx's CPU per request in each scenario of the comparison (the cases change nginx in every one). */
function nginxCpus(c: Comparison): NginxCpu[] {
  return c.cells
    .filter((x) => x.proxy === "nginx")
    .map((cell) => {
      const m = cell.metrics.find((x) => x.metric === "cpuPerRequest");
      if (!m) return { scenario: cell.scenario, verdict: "not compared" };
      const estimate = m.hlChangePct !== undefined ? { estimatePct: m.hlChangePct } : {};
      return { scenario: cell.scenario, verdict: m.verdict, ...estimate };
    });
}

/** nginx's CPU per request in passthrough, the scenario the simulation changes. */
function nginxPassthrough(c: Comparison): NginxCpu {
  return (
    nginxCpus(c).find((x) => x.scenario === "passthrough") ?? {
      scenario: "passthrough",
      verdict: "not compared",
    }
  );
}

/**
 * n simulated A/A runs and n with +pct% CPU per request on nginx: false alarms, the change found.
 * Returns the rounds each block of the changed runs took.
 */
function aaAndFound(
  plan: SequentialPlan,
  random: () => number,
  options: SimulationOptions,
  n: number,
  label: string,
  pct = 12,
): number[] {
  let aa = 0;
  let found = 0;
  const rounds: number[] = [];
  const change = { cell: "passthrough/default/nginx/k6", factors: { cpu: 1 + pct / 100 } };
  for (let i = 0; i < n; i++) {
    if (falseAlarm(simulateRun(plan, random, undefined, options).comparison)) aa += 1;
    const run = simulateRun(plan, random, change, options);
    if (nginxPassthrough(run.comparison).verdict === "regressed") found += 1;
    rounds.push(...run.rounds);
  }
  console.log(`  ${rate(`${label}A/A, any regressed or improved`, aa, n)}`);
  console.log(`  ${rate(`${label}+${pct}% CPU per request on nginx, regressed`, found, n)}`);
  return rounds;
}

/**
 * The 2-cell matrix (nginx, haproxy x passthrough) at the plan its real runs take (4 tests, looks
 * at 11, 37, 63 rounds), CPU per request's paired spread 6% and 2% of repetitions in a slow
 * episode: A/A, and +9% on nginx (X-Trace's size on this machine).
 */
function twoCells(random: () => number, primary: SimulationOptions, n: number): void {
  const plan = planLooks({ alpha: 0.05, tests: 4, maxRounds: 63 });
  const options = { ...primary, episodes: 0.02, proxies: ["nginx", "haproxy"], scenarios: ["passthrough"] };
  const looks = plan.looks.map((l) => l.rounds).join(", ");
  console.log(`simulated, 2 cells, looks at ${looks} rounds, 2% of repetitions in a slow episode:`);
  const rounds = aaAndFound(plan, random, options, n, "", 9);
  const at = plan.looks.map((l) => `${rounds.filter((r) => r === l.rounds).length} at ${l.rounds}`);
  console.log(`  +9%: the block stopped at ${at.join(", ")} rounds`);
}

function simulate(n: number): void {
  const random = mulberry32(33);
  const plan = defaultPlan(14, 15);
  const primary: SimulationOptions = { tested: [...PRIMARY_METRICS], targetPct: 10 };
  const looks = plan.looks.map((l) => l.rounds).join(", ");
  console.log(`simulated, 8 cells, looks at ${looks} rounds, CPU/request and p99 tested, --target 10:`);
  aaAndFound(plan, random, primary, n, "");
  const episodes = { ...primary, episodes: 0.02 };
  aaAndFound(plan, random, episodes, n, "2% of repetitions in a slow episode (CPU/request x1.9-2.8), ");
  noisyRounds(plan, random, primary, n);
  twoCells(random, primary, n);
  const all = { tested: [...ALL_METRICS], targetPct: 10 };
  const memoryPlan = defaultPlan(36, 15);
  for (const memory of ["running-max-untagged", "running-max", "process"] as const) {
    let alarms = 0;
    for (let i = 0; i < n; i++) {
      const c = simulateRun(memoryPlan, random, undefined, { ...all, memory }).comparison;
      if (
        c.cells.some((cell) =>
          cell.metrics.some(
            (m) => m.metric === "peakMemory" && m.verdict !== "unchanged" && m.verdict !== "inconclusive",
          ),
        )
      )
        alarms += 1;
    }
    console.log(
      `  ${rate(`docker memory path, A/A, every metric tested, peak ${memory}: peak memory regressed or improved`, alarms, n)}`,
    );
  }
}

/**
 * A round of each head cell spoiled by other work (its figures tripled) and marked noisy after its
 * tries, as the runner records it: the comparison leaves it out (src/stats/tested-metrics.ts).
 */
function spoilRound(results: Results, random: () => number): Results {
  const cells = results.cells.map((c) => {
    if (c.variant !== "head") return c;
    const spoilt = Math.floor(random() * c.repetitions.length);
    const repetitions = c.repetitions.map((r, i) => {
      if (i !== spoilt) return r;
      const cost = r.proxyCost && { ...r.proxyCost, cpuPerRequestUs: (r.proxyCost.cpuPerRequestUs ?? 0) * 3 };
      const latencyMs = { ...r.latencyMs, p99: r.latencyMs.p99 * 3 };
      return { ...r, latencyMs, ...(cost ? { proxyCost: cost } : {}), status: "noisy" as const };
    });
    return { ...c, repetitions, status: "noisy" as const };
  });
  return { ...results, cells };
}

/** The 8 cells with one noisy round in every head cell: the A/A rate and +12% on nginx found. */
function noisyRounds(
  plan: ReturnType<typeof defaultPlan>,
  random: () => number,
  primary: SimulationOptions,
  n: number,
): void {
  let aa = 0;
  let found = 0;
  const change = { cell: "passthrough/default/nginx/k6", factors: { cpu: 1.12 } };
  for (let i = 0; i < n; i++) {
    if (
      falseAlarm(compareVariants(spoilRound(simulateRun(plan, random, undefined, primary).results, random)))
    )
      aa += 1;
    const c = compareVariants(spoilRound(simulateRun(plan, random, change, primary).results, random));
    if (nginxPassthrough(c).verdict === "regressed") found += 1;
  }
  console.log(
    `  ${rate("one noisy round (figures tripled) in every head cell, A/A, any regressed or improved", aa, n)}`,
  );
  console.log(`  ${rate("the same, +12% CPU per request on nginx, regressed", found, n)}`);
}

/** nginx's folder in a variant, changed for the case. */
async function variantFor(root: string, name: string, which: Case): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, "scenarios"), { recursive: true });
  if (name === "base" || which === "aa") return dir;
  if (which === "xtrace") return nginxVariant(dir, X_TRACE);
  await nginxVariant(dir, []);
  const conf = path.join(dir, "proxies", "nginx", "nginx.conf");
  const text = await readFile(conf, "utf8");
  const changed = text.replace(/^\s*keepalive \d+;\n/m, "");
  if (changed === text) throw new Error(`${conf}: no upstream keepalive to remove`);
  await writeFile(conf, changed);
  return dir;
}

/** What a run leaves beside its results folder (decide.json), so that `--reread` can count it again. */
interface RunRecord {
  case: Case;
  matrix: Matrix;
  /** Wall time of the whole run, a wait for --lock included (the results' own start and end are read first). */
  seconds: number;
  exitCode: number;
}
const RECORD = "decide.json";

interface RealOutcome extends RunRecord {
  root: string;
  results?: Results;
  comparison?: Comparison;
}

/** One real run of a case over a matrix, in a new folder under `parent`; returns that folder. */
async function realRun(which: Case, matrix: Matrix, extra: string[], parent: string): Promise<string> {
  const root = await mkdtemp(path.join(parent, `proxybench-decide-${which}-`));
  const base = await variantFor(root, "base", which);
  const head = await variantFor(root, "head", which);
  const { proxies, scenarios } = MATRICES[matrix];
  const start = performance.now();
  const exitCode = await command(
    ["run", "--proxies", proxies, "--scenarios", scenarios, ...extra].concat([
      "--variant",
      `base=${base}`,
      "--variant",
      `head=${head}`,
      "--out",
      path.join(root, "out"),
    ]),
    FLAGS.lock,
  );
  const record: RunRecord = { case: which, matrix, seconds: (performance.now() - start) / 1000, exitCode };
  await writeFile(path.join(root, RECORD), `${JSON.stringify(record)}\n`);
  return root;
}

/** A run's record and results, compared as the run's own comment compares them. */
async function readOutcome(root: string): Promise<RealOutcome> {
  const record = JSON.parse(await readFile(path.join(root, RECORD), "utf8")) as RunRecord;
  const results = await readResults(path.join(root, "out")).catch(() => undefined);
  if (!results) return { ...record, root };
  // From the run's own start to its end: a wait for --lock is not the run's.
  const ran = (Date.parse(results.finishedAt ?? "") - Date.parse(results.startedAt)) / 1000;
  const seconds = Number.isFinite(ran) ? ran : record.seconds;
  return { ...record, seconds, root, results, comparison: compareVariants(results) };
}

/** With every metric tested: how many had p < 0.01, of how many with a p-value. */
function smallP(results: Results): { small: number; tested: number } {
  const all = compareVariants(results, { testedMetrics: [...ALL_METRICS] });
  const ps = all.cells.flatMap((c) => c.metrics.flatMap((m) => (m.p === undefined ? [] : [m.p])));
  return { small: ps.filter((p) => p < 0.01).length, tested: ps.length };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** nginx's CPU per request in its repetitions with steal above the run's limit and in the others. */
function stealWords(results: Results): string {
  const rule = stealRuleOf(results);
  const reps = results.cells.filter((c) => c.proxy === "nginx").flatMap((c) => c.repetitions);
  const cpu = (stolen: boolean) =>
    reps.filter((r) => stealOf(r) > rule.limit === stolen).flatMap((r) => r.proxyCost?.cpuPerRequestUs ?? []);
  const [stolen, quiet] = [cpu(true), cpu(false)];
  const all = results.cells.flatMap((c) => c.repetitions);
  const words = `steal above ${rule.limit} core in ${all.filter((r) => stealOf(r) > rule.limit).length} of ${all.length} repetitions`;
  if (stolen.length === 0 || quiet.length === 0) return words;
  return `${words} (nginx CPU/request median ${median(stolen)!.toFixed(1)} µs with it, ${median(quiet)!.toFixed(1)} µs without)`;
}

/**
 * nginx's paired spread of CPU per request a round, each scenario: the standard deviation of
 * log(head / base) and its robust counterpart (1.4826 x the median absolute deviation, the SD the
 * bulk of the rounds would have without the few far out), in %. The rank test reads the bulk.
 */
function spreadWords(results: Results): string {
  const nginx = results.cells.filter((c) => c.proxy === "nginx");
  const words = [...new Set(nginx.map((c) => c.scenario))].flatMap((scenario) => {
    const [base, head] = ["base", "head"].map((v) =>
      nginx.find((c) => c.scenario === scenario && c.variant === v),
    );
    const heads = new Map(head?.repetitions.map((r) => [r.round, r.proxyCost?.cpuPerRequestUs]) ?? []);
    const logs = (base?.repetitions ?? []).flatMap((r) => {
      const [b, h] = [r.proxyCost?.cpuPerRequestUs, heads.get(r.round)];
      return b && h ? [Math.log(h / b)] : [];
    });
    if (logs.length < 3) return [];
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const sd = `SD ${pct(sampleStandardDeviation(logs))}, robust ${pct(1.4826 * medianAbsoluteDeviation(logs))}`;
    return [nginx.length > 2 ? `${scenario} ${sd}` : sd];
  });
  return words.length > 0 ? `nginx paired spread a round: ${words.join("; ")}` : "nginx paired spread: none";
}

const signed = (pct: number) => `${pct >= 0 ? "+" : ""}${pct.toFixed(1)}%`;

/** "passthrough regressed +9.6%, json-lookup inconclusive +3.1%" (the scenario named when there are several). */
function nginxWords(cpus: readonly NginxCpu[]): string {
  if (cpus.length === 0) return "not compared";
  return cpus
    .map((x) => {
      const estimate = x.estimatePct === undefined ? "" : ` ${signed(x.estimatePct)}`;
      return `${cpus.length > 1 ? `${x.scenario} ` : ""}${x.verdict}${estimate}`;
    })
    .join(", ");
}

function describe(o: RealOutcome): string {
  const c = o.comparison;
  if (!c || !o.results) return `no results (exit ${o.exitCode}); ${o.root}`;
  const p = smallP(o.results);
  const aa = o.case === "aa";
  const elsewhere = aa
    ? `, any regressed/improved: ${falseAlarm(c) ? "yes" : "no"}, every metric tested: ${p.small} of ${p.tested} at p < 0.01`
    : "";
  const rounds = [...new Set(o.results.cells.map((x) => x.repetitions.length))].join("/");
  return `nginx CPU/request ${nginxWords(nginxCpus(c))}${elsewhere}; rounds ${rounds}; ${Math.round(o.seconds)} s; ${spreadWords(o.results)}; ${stealWords(o.results)}; ${o.root}`;
}

/** A compared primary metric: some cell's CPU per request tested, or shown with its interval. */
function primaryCompared(c: Comparison | undefined): boolean {
  return (c?.cells ?? []).some((cell) =>
    cell.metrics.some((m) => m.metric === "cpuPerRequest" && m.p !== undefined),
  );
}

function summary(which: Case, matrix: Matrix, outcomes: readonly RealOutcome[]): string[] {
  const n = outcomes.length;
  // each nginx cell a decision: a matrix of two scenarios gives two a run
  const verdicts = outcomes.flatMap((o) =>
    o.comparison ? nginxCpus(o.comparison).map((x) => x.verdict) : ["not compared"],
  );
  const decided = verdicts.filter((v) => v !== "inconclusive" && v !== "not compared").length;
  const seconds = outcomes.map((o) => o.seconds);
  const lines = [
    `${rate(`${which}, matrix ${matrix}: nginx CPU/request decided (a cell each scenario, ${n} runs)`, decided, verdicts.length)}; regressed ${verdicts.filter((v) => v === "regressed").length}`,
    `  ${rate("runs without a compared CPU per request", outcomes.filter((o) => !primaryCompared(o.comparison)).length, n)}`,
    `  time to the verdict: median ${Math.round(median(seconds) ?? 0)} s, ${Math.round(Math.min(...seconds))}-${Math.round(Math.max(...seconds))} s`,
  ];
  if (which !== "aa") return lines;
  const p = outcomes.flatMap((o) => (o.results ? [smallP(o.results)] : []));
  const sum = (k: "small" | "tested") => p.reduce((t, x) => t + x[k], 0);
  lines.push(
    `  ${rate("runs with any regressed or improved", outcomes.filter((o) => o.comparison && falseAlarm(o.comparison)).length, n)}`,
  );
  lines.push(`  ${rate("with every metric tested, metrics at p < 0.01", sum("small"), sum("tested"))}`);
  return lines;
}

async function real(runs: number): Promise<void> {
  const cases = list("cases", CASES, CASES);
  const matrices = list("matrices", Object.keys(MATRICES) as Matrix[], ["two"]);
  const extra = (["duration", "warmup", "budget"] as const).flatMap((f) => {
    const v = FLAGS[f];
    return v === undefined ? [] : [`--${f}`, v];
  });
  const parent = FLAGS.keep ?? os.tmpdir();
  await mkdir(parent, { recursive: true });
  for (const matrix of matrices) {
    for (const which of cases) {
      const outcomes: RealOutcome[] = [];
      for (let i = 0; i < runs; i++) {
        const outcome = await readOutcome(await realRun(which, matrix, extra, parent));
        console.log(`    ${which}, ${matrix}, run ${i + 1}: ${describe(outcome)}`);
        outcomes.push(outcome);
      }
      console.log(summary(which, matrix, outcomes).join("\n"));
    }
  }
}

/** Every run kept under `dir` (its decide.json), counted again by case and matrix. */
async function reread(dir: string): Promise<void> {
  const entries = await readdir(dir);
  const roots = entries.filter((name) => existsSync(path.join(dir, name, RECORD)));
  const outcomes = await Promise.all(roots.map((name) => readOutcome(path.join(dir, name))));
  const started = (o: RealOutcome) => Date.parse(o.results?.cells[0]?.repetitions[0]?.startedAt ?? "") || 0;
  outcomes.sort((a, b) => started(a) - started(b));
  for (const matrix of Object.keys(MATRICES) as Matrix[])
    for (const which of CASES) {
      const these = outcomes.filter((o) => o.case === which && o.matrix === matrix);
      if (these.length === 0) continue;
      these.forEach((o, i) => console.log(`    ${which}, ${matrix}, run ${i + 1}: ${describe(o)}`));
      console.log(summary(which, matrix, these).join("\n"));
    }
}

async function main(): Promise<void> {
  if (FLAGS.help) return void console.log(USAGE);
  if (FLAGS.reread !== undefined) return reread(FLAGS.reread);
  const n = count("simulate");
  if (n > 0) simulate(n);
  const runs = count("runs");
  if (runs > 0) await real(runs);
}

await main();
