/**
 * The proxy's own cost, measured (`npm run bench:proxy-cost`). Prints figures; asserts nothing.
 *
 * Two variant runs on the built-in passthrough scenario (k6 at a fixed arrival rate), rounds
 * interleaved as `proxybench run --variant` does:
 * - A/A: nginx and HAProxy, base and an identical copy; per proxy the CPU per request, requests
 *   per CPU-second and peak memory, and the paired spread over rounds (SD of the per-round log
 *   ratio, in %) of CPU per request beside that of p50 and p99 latency;
 * - X-Trace: nginx with one more line, `proxy_set_header X-Trace $request_id;`; the paired
 *   change of CPU per request (Hodges-Lehmann estimate, with the rounds it was higher in).
 *
 *   npm run bench:proxy-cost -- [--rounds N] [--duration S]   (defaults 8, 3)
 *
 * Bounded: about 4 minutes with the defaults; run it under the load lock.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { median, sampleStandardDeviation } from "simple-statistics";
import * as engines from "../src/engines/index.js";
import type { Cell, Repetition, Results } from "../src/results/schema.js";
import { runBenchmark } from "../src/measures/wall-clock/run.js";
import { hodgesLehmannPaired } from "../src/stats/wilcoxon.js";
import { nginxVariant, X_TRACE } from "./nginx-variant.js";

const cores = os.availableParallelism();
const CPUS = cores >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i < 0 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}: expected a positive number`);
  return value;
}

const ROUNDS = flag("--rounds", 8);
const DURATION_S = flag("--duration", 3);

async function variantRun(proxies: string[], variants: Array<{ name: string; dir: string }>, out: string) {
  const sink = { write: () => true };
  const outcome = await runBenchmark(
    {
      proxies,
      scenarios: ["passthrough"],
      repetitions: ROUNDS,
      durationS: DURATION_S,
      warmupS: 1,
      cpus: CPUS,
      out,
      variants,
      noiseLimit: 2, // CPU time is the proxy's own: other work on the machine does not add to it
    },
    { engines, stderr: sink, stdout: sink, handleSignals: false },
  );
  return outcome.results;
}

type Figure = (r: Repetition) => number | undefined;
const cpuPerRequest: Figure = (r) => r.proxyCost?.cpuPerRequestUs;

/** Per round, log(head / base) of a figure; rounds missing a value on either side are left out. */
function logRatios(base: Cell, head: Cell, figure: Figure): number[] {
  const out: number[] = [];
  for (const b of base.repetitions) {
    const h = head.repetitions.find((r) => r.round === b.round);
    const [x, y] = [figure(b), h === undefined ? undefined : figure(h)];
    if (x !== undefined && y !== undefined && x > 0 && y > 0) out.push(Math.log(y / x));
  }
  return out;
}

const pct = (logRatio: number) => `${((Math.exp(logRatio) - 1) * 100).toFixed(1)}%`;
const sd = (xs: number[]) => (xs.length < 2 ? "n/a" : `${(sampleStandardDeviation(xs) * 100).toFixed(1)}%`);
const med = (cell: Cell, figure: Figure) => {
  const xs = cell.repetitions.map(figure).filter((x): x is number => x !== undefined);
  return xs.length === 0 ? NaN : median(xs);
};

function cellOf(results: Results, proxy: string, variant: string): Cell {
  const cell = results.cells.find((c) => c.proxy === proxy && c.variant === variant);
  if (cell === undefined) throw new Error(`no ${proxy}@${variant} in ${results.runId}`);
  return cell;
}

function statuses(cells: Cell[]): string {
  return cells.map((c) => `${c.variant}: ${c.status}`).join(", ");
}

function printAa(results: Results, proxy: string): void {
  const [a, b] = [cellOf(results, proxy, "base"), cellOf(results, proxy, "same")];
  const p50 = logRatios(a, b, (r) => r.latencyMs.p50);
  const p99 = logRatios(a, b, (r) => r.latencyMs.p99);
  const cpu = logRatios(a, b, cpuPerRequest);
  console.log(
    `${proxy.padEnd(8)} CPU/request ${med(a, cpuPerRequest).toFixed(1)} / ${med(b, cpuPerRequest).toFixed(1)} µs, ` +
      `requests/CPU-s ${Math.round(med(a, (r) => r.proxyCost?.requestsPerCpuS))}, ` +
      `peak memory ${med(a, (r) => r.proxyCost?.peakMemoryMiB).toFixed(1)} MiB; ` +
      `paired SD over ${cpu.length} rounds: CPU/request ${sd(cpu)}, p50 ${sd(p50)}, p99 ${sd(p99)} (${statuses([a, b])})`,
  );
}

function printChange(results: Results, proxy: string, head: string): void {
  const [a, b] = [cellOf(results, proxy, "base"), cellOf(results, proxy, head)];
  const cpu = logRatios(a, b, cpuPerRequest);
  const p50 = logRatios(a, b, (r) => r.latencyMs.p50);
  const hl = hodgesLehmannPaired(cpu, 0.95);
  const interval =
    hl?.low !== undefined && hl.high !== undefined ? ` (95% ${pct(hl.low)} to ${pct(hl.high)})` : "";
  console.log(
    `${proxy.padEnd(8)} CPU/request ${med(a, cpuPerRequest).toFixed(1)} -> ${med(b, cpuPerRequest).toFixed(1)} µs: ` +
      `paired change ${hl === undefined ? "n/a" : pct(hl.estimate)}${interval}, higher in ${cpu.filter((x) => x > 0).length} of ${cpu.length} rounds, paired SD ${sd(cpu)}; ` +
      `p50 paired change ${p50.length ? pct(median(p50)) : "n/a"}, SD ${sd(p50)} (${statuses([a, b])})`,
  );
}

async function main(): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "pb-bench-cost-"));
  try {
    console.log(
      `passthrough (its own fixed arrival rate), ${ROUNDS} rounds of ${DURATION_S} s, cores ${CPUS}`,
    );
    const base = await nginxVariant(path.join(tmp, "base"), []);
    const same = await nginxVariant(path.join(tmp, "same"), []);
    const aa = await variantRun(
      ["nginx", "haproxy"],
      [
        { name: "base", dir: base },
        { name: "same", dir: same },
      ],
      path.join(tmp, "aa"),
    );
    const load = aa.cells[0]?.load;
    console.log(`A/A (identical variants), ${load?.model} at ${load?.rate}/s:`);
    printAa(aa, "nginx");
    printAa(aa, "haproxy");
    const xtrace = await nginxVariant(path.join(tmp, "xtrace"), X_TRACE);
    const change = await variantRun(
      ["nginx"],
      [
        { name: "base", dir: base },
        { name: "xtrace", dir: xtrace },
      ],
      path.join(tmp, "xtrace-run"),
    );
    console.log("nginx + proxy_set_header X-Trace $request_id:");
    printChange(change, "nginx", "xtrace");
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
