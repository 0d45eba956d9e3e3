/**
 * Does the wall clock decide? (`npm run bench:decide`). Prints figures; asserts nothing.
 *
 * Simulated, through the real code (the runner's stopping rule at each planned look and
 * `compareVariants`, bench/ab-simulation.ts), the 8-cell pull request at the defaults of a variant
 * run (`-r auto` within 15 minutes at 1 s repetitions, --target 10, CPU per request and p99
 * tested): the A/A rate of any `regressed`/`improved`, how often +12% CPU per request on nginx is
 * found, and the docker memory path's A/A with every metric tested: a peak never reset recorded
 * as such (shown, never tested), the same maximum recorded without saying so (how it was tested
 * before), and a peak per process (`--proxy-lifetime round`).
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
 * passthrough, json-lookup). Per case: how nginx's CPU per request was judged, its estimate,
 * any `regressed`/`improved` elsewhere, the rounds and the wall time to the verdict.
 *
 *   npm run bench:decide -- [--simulate N] [--runs N] [--cases aa,xtrace,kernel]
 *                           [--matrices two,pr] [--duration S] [--warmup S] [--budget MIN]
 *                           [--lock FILE]
 *   (defaults 1000, 1, all cases, two; the scenarios' own duration and warm-up; 15; none:
 *   with --lock each run holds `flock FILE`, so other locked benchmarks wait for it)
 *
 * Bounded: the simulation takes about a minute per thousand runs; a real run at most its budget
 * plus its warm-ups.
 */
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { compareVariants, type Comparison } from "../src/report/compare.js";
import { readResults } from "../src/results/io.js";
import { mulberry32 } from "../src/runner/rounds.js";
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

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

function count(name: string, fallback: number): number {
  const value = Number(flag(name) ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number`);
  return value;
}

function list<T extends string>(name: string, known: readonly T[], fallback: readonly T[]): T[] {
  const asked = (flag(name)?.split(",") ?? fallback) as T[];
  const unknown = asked.find((a) => !known.includes(a));
  if (unknown) throw new Error(`${name}: unknown '${unknown}' (known: ${known.join(", ")})`);
  return asked;
}

function falseAlarm(c: Comparison): boolean {
  return c.counts.regressed + c.counts.improved > 0;
}

/** nginx's CPU per request in the first scenario: its verdict and estimate. */
function nginxCpu(c: Comparison): { verdict: string; estimatePct?: number } {
  const cell = c.cells.find((x) => x.proxy === "nginx");
  const m = cell?.metrics.find((x) => x.metric === "cpuPerRequest");
  if (!m) return { verdict: "not compared" };
  return { verdict: m.verdict, ...(m.hlChangePct !== undefined ? { estimatePct: m.hlChangePct } : {}) };
}

function simulate(n: number): void {
  const random = mulberry32(33);
  const plan = defaultPlan(14, 15);
  const primary: SimulationOptions = { tested: [...PRIMARY_METRICS], targetPct: 10 };
  let aa = 0;
  let found = 0;
  for (let i = 0; i < n; i++) {
    if (falseAlarm(simulateRun(plan, random, undefined, primary).comparison)) aa += 1;
    const change = { cell: "passthrough/default/nginx/k6", factors: { cpu: 1.12 } };
    if (nginxCpu(simulateRun(plan, random, change, primary).comparison).verdict === "regressed") found += 1;
  }
  const looks = plan.looks.map((l) => l.rounds).join(", ");
  console.log(`simulated, 8 cells, looks at ${looks} rounds, CPU/request and p99 tested, --target 10:`);
  console.log(`  ${rate("A/A, any regressed or improved", aa, n)}`);
  console.log(`  ${rate("+12% CPU per request on nginx, regressed", found, n)}`);
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

interface RealOutcome {
  comparison?: Comparison;
  exitCode: number;
  seconds: number;
  rounds: number[];
  /** The run's results folder, kept. */
  out: string;
}

async function realRun(which: Case, matrix: Matrix, extra: string[]): Promise<RealOutcome> {
  const root = await mkdtemp(path.join(os.tmpdir(), `proxybench-decide-${which}-`));
  const base = await variantFor(root, "base", which);
  const head = await variantFor(root, "head", which);
  const out = path.join(root, "out");
  const { proxies, scenarios } = MATRICES[matrix];
  const start = performance.now();
  const exitCode = await command(
    ["run", "--proxies", proxies, "--scenarios", scenarios, ...extra].concat([
      "--variant",
      `base=${base}`,
      "--variant",
      `head=${head}`,
      "--out",
      out,
    ]),
    flag("--lock"),
  );
  const seconds = (performance.now() - start) / 1000;
  const results = await readResults(out).catch(() => undefined);
  if (!results) return { exitCode, seconds, rounds: [], out };
  const rounds = [...new Set(results.cells.map((c) => c.repetitions.length))];
  return { comparison: compareVariants(results), exitCode, seconds, rounds, out };
}

function describe(which: Case, outcome: RealOutcome): string {
  const c = outcome.comparison;
  if (!c) return `no results (exit ${outcome.exitCode})`;
  const cpu = nginxCpu(c);
  const estimate =
    cpu.estimatePct === undefined ? "" : ` ${cpu.estimatePct >= 0 ? "+" : ""}${cpu.estimatePct.toFixed(1)}%`;
  const elsewhere = which === "aa" ? `, any regressed/improved: ${falseAlarm(c) ? "yes" : "no"}` : "";
  return `nginx CPU/request ${cpu.verdict}${estimate}${elsewhere}; rounds ${outcome.rounds.join("/")}; ${Math.round(outcome.seconds)} s; ${outcome.out}`;
}

async function real(runs: number): Promise<void> {
  const cases = list("--cases", CASES, CASES);
  const matrices = list("--matrices", Object.keys(MATRICES) as Matrix[], ["two"]);
  const extra = (["--duration", "--warmup", "--budget"] as const).flatMap((f) => {
    const v = flag(f);
    return v === undefined ? [] : [f, v];
  });
  for (const matrix of matrices) {
    for (const which of cases) {
      const verdicts: string[] = [];
      let alarmed = 0;
      for (let i = 0; i < runs; i++) {
        const outcome = await realRun(which, matrix, extra);
        if (outcome.comparison && falseAlarm(outcome.comparison)) alarmed += 1;
        console.log(`    ${which}, ${matrix}, run ${i + 1}: ${describe(which, outcome)}`);
        if (outcome.comparison) verdicts.push(nginxCpu(outcome.comparison).verdict);
      }
      const decided = verdicts.filter((v) => v !== "inconclusive" && v !== "not compared").length;
      const alarms =
        which === "aa"
          ? `; ${rate("any regressed or improved", alarmed, runs)}`
          : `, regressed ${verdicts.filter((v) => v === "regressed").length}`;
      console.log(`${rate(`${which}, matrix ${matrix}: nginx CPU/request decided`, decided, runs)}${alarms}`);
    }
  }
}

async function main(): Promise<void> {
  const n = count("--simulate", 1000);
  if (n > 0) simulate(n);
  const runs = count("--runs", 1);
  if (runs > 0) await real(runs);
}

await main();
