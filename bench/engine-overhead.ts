/**
 * Engine overhead benchmark (`npm run bench`). Prints figures; asserts nothing.
 *
 * (a) proxybench's wrk engine against plain `wrk` on the direct upstream (/api/values), same
 *     threads, connections and duration, bracketed: plain, engine, plain, engine, ... plain.
 *     Each engine run is compared with the mean of the plain runs either side of it, which
 *     cancels a drift of the host's speed that is linear over the three runs (on a shared VM
 *     the speed moves by 10-20% within a minute). Goal >= 0.97 in every pair. A pair whose
 *     plain runs are more than 5% apart (the speed jumped rather than drifted) is measured
 *     again, at most twice; the summary says how many were.
 * (b) the k6 engine's ceiling on one core against plain k6 (bench/bare.k6.js) at the same VUs,
 *     bracketed the same way: k6 pinned to core 0, the upstream on core 1; whether
 *     classifyRepetition flags the engine's runs loadgen-bound. Plain k6 runs as a user runs it
 *     (Go's default GOGC); then once more at the engine's GOGC (K6_GOGC), which says what the
 *     k6 library itself costs with the garbage collector set alike.
 * (c) the coefficient of variation of req/s and p50 over 5 repetitions for nginx and HAProxy,
 *     measured where req/s is the proxy's own: `proxybench run` with the wrk engine at
 *     passthrough's `max` level (a closed-model k6 load on two cores measures k6, see (b));
 *     the same run gives the orchestration overhead: its wall time against its seconds of load.
 * (d) report time: markdown, HTML and compare of 1000 cells x 10 repetitions.
 * The wrk pairs run at 64 and 256 connections. Every ratio is printed again at the end.
 *
 * Bounded: about 3 minutes of load in total, 5 at the most when every pair is measured again.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { mean, median, sampleStandardDeviation } from "simple-statistics";
import { classifyRepetition, getEngine, probe } from "../src/engines/index.js";
import { withoutUndefined } from "../src/util/objects.js";
import { buildK6Args, k6GoRuntimeEnv } from "../src/engines/k6/config.js";
import type { EngineInvocation, EngineMeasurement } from "../src/engines/types.js";
import { ScenarioManifest } from "../src/manifests/schema.js";
import type { Load } from "../src/results/schema.js";
import { compareResults } from "../src/report/compare.js";
import { renderHtmlReport } from "../src/report/html.js";
import { renderMarkdownReport } from "../src/report/markdown.js";
import type { Results } from "../src/results/schema.js";
import { runBenchmark } from "../src/measures/wall-clock/run.js";
import { findExecutable, PROJECT_ROOT } from "../src/util/paths.js";
import { runCommand, stopAll } from "../src/util/processes.js";
import { startUpstream } from "./upstream.js";

const WRK_SECONDS = 3;
const WRK_PAIRS = 5;
const K6_EQUAL_GC_PAIRS = 2;
const WRK_CONNECTION_COUNTS = [64, 256];
const K6_SECONDS = 5;
const K6_PAIRS = 4;
const K6_CEILING_VUS = 64;
const CV_REPETITIONS = 5;
const CV_SECONDS = 5;
const CV_WARMUP_SECONDS = 2;

const cores = os.availableParallelism();
const LOADGEN = [0];
const TARGET = [Math.min(1, cores - 1)];

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "proxybench-bench-"));
  try {
    console.log(
      `engine overhead benchmark: ${cores} cores, load generator on core ${LOADGEN.join(",")}, target on core ${TARGET.join(",")}`,
    );
    console.log(
      `load average before: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    const upstream = await startUpstream(TARGET);
    const passthrough = await scenario("passthrough");
    const check = await probe(upstream.baseUrl, passthrough.manifest);
    if (!check.ok)
      throw new Error(`the upstream does not serve passthrough correctly: ${check.reasons.join("; ")}`);

    for (const connections of WRK_CONNECTION_COUNTS) {
      await wrkOverhead(upstream.baseUrl, passthrough, dir, connections);
      loadAverage();
    }
    await k6Ceiling(upstream.baseUrl, passthrough, dir);
    loadAverage();
    await upstream.proc.stop();
    await proxyVariation(dir);
    loadAverage();
    reportTime();
    console.log("\nsummary");
    for (const line of SUMMARY) console.log(`  ${line}`);
  } finally {
    await stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}

async function scenario(name: string): Promise<{ manifest: ScenarioManifest; dir: string }> {
  const dir = path.join(PROJECT_ROOT, "scenarios", name);
  const manifest = ScenarioManifest.parse(parse(await readFile(path.join(dir, "scenario.yml"), "utf8")));
  return { manifest, dir };
}

function invocation(
  s: { manifest: ScenarioManifest; dir: string },
  load: Load,
  durationS: number,
  baseUrl: string,
  outDir: string,
  fileStem: string,
): EngineInvocation {
  return {
    scenario: s.manifest,
    scenarioDir: s.dir,
    load,
    durationS,
    baseUrl,
    cpus: LOADGEN,
    outDir,
    fileStem,
  };
}

/** The ratios and figures the issue's targets are about, printed together at the end. */
const SUMMARY: string[] = [];

/** Plain wrk, as a user would run it: `wrk -t1 -c64 -d5s URL`, req/s from its stdout. */
async function rawWrk(url: string, connections: number): Promise<number> {
  const wrk = await findExecutable("wrk");
  if (!wrk) throw new Error("wrk not found: apt-get install wrk");
  const { code, output } = await runCommand("taskset", [
    "-c",
    LOADGEN.join(","),
    wrk,
    "-t",
    String(LOADGEN.length),
    "-c",
    String(connections),
    "-d",
    `${WRK_SECONDS}s`,
    url,
  ]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  if (code !== 0 || !Number.isFinite(rps)) throw new Error(`wrk failed (${code}): ${output}`);
  return rps;
}

/**
 * Plain runs either side of a candidate further apart than this: the host's speed moved within
 * the pair, not linearly, so their mean says nothing of the speed during the candidate's run.
 * Such a pair is measured again, at most BRACKET_REDOS times, and said.
 */
const BRACKET_TOLERANCE = 0.05;
const BRACKET_REDOS = 2;

interface Bracketed {
  ratios: number[];
  /** How many times a pair was measured again (each is printed as it happens). */
  redone: number;
  /** Pairs whose plain runs were still too far apart after the redos (their ratio is kept). */
  unsettled: number[];
}

/**
 * `pairs` runs of `candidate`, each between two runs of `reference` (r c r c ... r): each
 * candidate against the mean of the reference runs either side of it.
 */
async function bracketed(
  pairs: number,
  reference: () => Promise<number>,
  candidate: (i: number) => Promise<number>,
): Promise<Bracketed> {
  const out: Bracketed = { ratios: [], redone: 0, unsettled: [] };
  let before = await reference();
  for (let i = 0; i < pairs; i++) {
    for (let attempt = 0; ; attempt++) {
      const c = await candidate(i);
      const after = await reference();
      const apart = Math.abs(after - before) / Math.min(after, before);
      const ratio = c / ((before + after) / 2);
      before = after;
      if (apart <= BRACKET_TOLERANCE || attempt === BRACKET_REDOS) {
        if (apart > BRACKET_TOLERANCE) out.unsettled.push(i);
        out.ratios.push(ratio);
        break;
      }
      console.log(
        `  measured again, pair ${i + 1}: plain runs ${(apart * 100).toFixed(1)}% apart (ratio ${ratio.toFixed(3)} set aside)`,
      );
      out.redone += 1;
    }
  }
  return out;
}

function ratioLine(label: string, runs: Bracketed, goal: string): string {
  const worst = Math.min(...runs.ratios);
  const pairs = runs.ratios.map((r, i) => `${r.toFixed(3)}${runs.unsettled.includes(i) ? "!" : ""}`);
  const unsettled = runs.unsettled.length
    ? `; ! = plain runs still over ${BRACKET_TOLERANCE * 100}% apart after ${BRACKET_REDOS} redos`
    : "";
  return `${label}: median ${median(runs.ratios).toFixed(3)}, worst ${worst.toFixed(3)}, pairs ${pairs.join(" ")}, redone ${runs.redone}${unsettled} (goal ${goal})`;
}

async function wrkOverhead(
  baseUrl: string,
  s: { manifest: ScenarioManifest; dir: string },
  dir: string,
  connections: number,
): Promise<void> {
  console.log(
    `\n(a) wrk engine vs plain wrk: direct upstream, /api/values, ${LOADGEN.length} thread, ${connections} connections, ${WRK_SECONDS} s, ${WRK_PAIRS} engine runs each between two plain runs`,
  );
  const load: Load = { label: "bench", model: "max-throughput", connections };
  const engineCpu: number[] = [];
  const runs = await bracketed(
    WRK_PAIRS,
    async () => {
      const rps = await rawWrk(`${baseUrl}/api/values`, connections);
      console.log(`  plain: ${rps.toFixed(0)} req/s`);
      return rps;
    },
    async (i) => {
      const m = await getEngine("wrk").run(
        invocation(s, load, WRK_SECONDS, baseUrl, dir, `wrk-${connections}-${i}`),
      );
      report(`  engine`, m);
      if (m.loadgenCpu !== undefined) engineCpu.push(m.loadgenCpu);
      return m.rps;
    },
  );
  const line = ratioLine(`wrk engine / raw wrk at ${connections} connections`, runs, ">= 0.97 in every pair");
  console.log(`  ${line}`);
  SUMMARY.push(line);
  if (engineCpu.length) console.log(`  wrk CPU during the engine runs: ${mean(engineCpu).toFixed(2)} cores`);
}

async function k6Ceiling(
  baseUrl: string,
  s: { manifest: ScenarioManifest; dir: string },
  dir: string,
): Promise<void> {
  console.log(
    `\n(b) k6 engine ceiling on one core: passthrough (with its body check), ${K6_CEILING_VUS} VUs, ${K6_SECONDS} s, direct upstream; engine runs each between two plain k6 runs`,
  );
  const load: Load = { label: "bench", model: "constant-vus", vus: K6_CEILING_VUS };
  // The GOGC the engine gives k6 (K6_GOGC, unless this shell sets its own).
  const engineGogc = k6GoRuntimeEnv(os.totalmem(), process.env).GOGC;
  const engine = async (i: number) => {
    const m = await getEngine("k6").run(invocation(s, load, K6_SECONDS, baseUrl, dir, `k6-ceiling-${i}`));
    const c = classifyRepetition(m, { loadgenCores: LOADGEN.length });
    report(`  engine (GOGC ${engineGogc})`, m);
    console.log(`    classified: ${c.status}${c.reasons.length ? ` (${c.reasons.join("; ")})` : ""}`);
    return m.rps;
  };
  const bare = (gogc?: string) => async () => {
    const rps = await bareK6(`${baseUrl}/api/values`, dir, gogc);
    console.log(`  plain k6 (GOGC ${gogc ?? "default"}): ${rps.toFixed(0)} req/s`);
    return rps;
  };
  const asUsersRunIt = await bracketed(K6_PAIRS, bare(), engine);
  const line = ratioLine(
    `k6 engine / bare k6 as a user runs it (${K6_CEILING_VUS} VUs, one core)`,
    asUsersRunIt,
    ">= 0.9",
  );
  console.log(`  ${line}`);
  SUMMARY.push(line);
  const equalGc = await bracketed(K6_EQUAL_GC_PAIRS, bare(engineGogc), engine);
  const library = ratioLine(
    `k6 engine / bare k6 both at GOGC ${engineGogc} (the library's own cost)`,
    equalGc,
    ">= 0.9",
  );
  console.log(`  ${library}`);
  SUMMARY.push(library);
}

/** Plain k6 (bench/bare.k6.js) on the same core and load: req/s from its own summary. */
async function bareK6(url: string, dir: string, gogc?: string): Promise<number> {
  const { path: k6 } = await getEngine("k6").locate();
  const summary = path.join(dir, "k6-bare.json");
  const { code, output } = await runCommand(
    "taskset",
    [
      "-c",
      LOADGEN.join(","),
      k6,
      // the engine's own flags (quiet, no REST API, no usage report), so only the script differs
      ...buildK6Args(path.join(PROJECT_ROOT, "bench", "bare.k6.js")),
    ],
    {
      env: {
        K6_NO_USAGE_REPORT: "true",
        BENCH_URL: url,
        BENCH_VUS: String(K6_CEILING_VUS),
        BENCH_SECONDS: String(K6_SECONDS),
        BENCH_SUMMARY: summary,
        ...withoutUndefined({ GOGC: gogc }),
      },
    },
  );
  if (code !== 0) throw new Error(`plain k6 failed (${code}): ${output}`);
  const data = JSON.parse(await readFile(summary, "utf8")) as {
    metrics: { http_reqs: { values: { rate: number } } };
  };
  return data.metrics.http_reqs.values.rate;
}

/**
 * nginx and HAProxy through `proxybench run` itself (wrk, passthrough `max`, 5 repetitions in
 * rounds): the CV of req/s and p50 per proxy, and the run's wall time against its load time.
 */
async function proxyVariation(dir: string): Promise<void> {
  console.log(
    `\n(c) req/s and p50 over ${CV_REPETITIONS} repetitions through proxybench run: wrk engine, passthrough 'max' load, ${CV_SECONDS} s each after a ${CV_WARMUP_SECONDS} s warm-up`,
  );
  const sink = { write: () => true };
  const started = performance.now();
  const outcome = await runBenchmark(
    {
      proxies: ["nginx", "haproxy"],
      scenarios: ["passthrough"],
      engine: "wrk",
      loads: ["max"],
      repetitions: CV_REPETITIONS,
      durationS: CV_SECONDS,
      warmupS: CV_WARMUP_SECONDS,
      out: path.join(dir, "variation"),
    },
    { engines: { getEngine, classifyRepetition, probe }, stderr: sink, stdout: sink, handleSignals: false },
  );
  const wallS = (performance.now() - started) / 1000;
  for (const cell of outcome.results.cells) {
    const rps = cell.repetitions.map((r) => r.rps);
    const p50 = cell.repetitions.map((r) => r.latencyMs.p50);
    const statuses = cell.repetitions.map((r) => r.status).join(" ");
    const line = `${cell.proxy}: req/s mean ${mean(rps).toFixed(0)}, CV ${cv(rps)}; p50 CV ${cv(p50)} (${statuses}; redone ${(cell.redone?.noisy ?? 0) + (cell.redone?.dropped ?? 0)})`;
    console.log(`  ${cell.proxy} req/s by repetition: ${rps.map((r) => r.toFixed(0)).join(" ")}`);
    console.log(`  ${line}`);
    SUMMARY.push(line);
  }
  const attempts = outcome.results.cells
    .flatMap((c) => c.repetitions)
    .reduce((n, r) => n + (r.attempts ?? 1), 0);
  const loadS = outcome.results.cells.length * CV_WARMUP_SECONDS + attempts * CV_SECONDS;
  const overhead = `orchestration: ${wallS.toFixed(1)} s for ${loadS} s of warm-up and measurement: ${(((wallS - loadS) / loadS) * 100).toFixed(1)}% overhead`;
  console.log(`  ${overhead}`);
  SUMMARY.push(overhead);
}

function cv(xs: number[]): string {
  return xs.length < 2 ? "n/a" : `${((sampleStandardDeviation(xs) / mean(xs)) * 100).toFixed(2)}%`;
}

/** Report time of a large matrix: 1000 cells x 10 repetitions, synthesised. */
function reportTime(): void {
  const results = syntheticResults(1000, 10);
  const head = syntheticResults(1000, 10);
  const t0 = performance.now();
  renderMarkdownReport(results);
  const t1 = performance.now();
  renderHtmlReport(results);
  const t2 = performance.now();
  compareResults(results, head);
  const t3 = performance.now();
  const line = `report time, 1000 cells x 10 repetitions: markdown ${((t1 - t0) / 1000).toFixed(2)} s, HTML ${((t2 - t1) / 1000).toFixed(2)} s, compare ${((t3 - t2) / 1000).toFixed(2)} s`;
  console.log(`\n(d) ${line}`);
  SUMMARY.push(line);
}

/** Repetition i of synthetic cell c: latencies that differ a little by cell and repetition. */
function syntheticRepetition(i: number, c: number) {
  const p50 = 1 + (c % 7) * 0.1 + (i % 3) * 0.01;
  return {
    index: i,
    startedAt: new Date(0).toISOString(),
    durationS: 5,
    status: "ok" as const,
    reasons: [],
    rps: 1000 + i,
    requests: 5000,
    errors: 0,
    non2xx: 0,
    checkFailures: 0,
    statusCodes: { "200": 5000 },
    droppedIterations: 0,
    latencyMs: { min: p50 / 2, mean: p50, p50, p90: p50 * 2, p95: p50 * 3, p99: p50 * 4, max: p50 * 9 },
    raw: [],
  };
}

function syntheticResults(cells: number, repetitions: number): Results {
  const load = { label: "default", model: "constant-vus" as const, vus: 10 };
  return {
    schemaVersion: 2,
    tool: { name: "proxybench", version: "bench" },
    runId: "synthetic",
    startedAt: new Date(0).toISOString(),
    settings: {
      proxies: ["direct"],
      scenarios: ["s"],
      repetitions,
      cpus: { loadgen: [0], proxy: [1], upstream: [1] },
      runtime: "native",
    },
    environment: {
      os: "linux",
      kernel: "6",
      arch: "x64",
      cpuModel: "bench",
      cores: 2,
      loadAverage: [0, 0, 0],
      node: process.version,
      tools: {},
      proxies: {},
      git: {},
    },
    skipped: [],
    cells: Array.from({ length: cells }, (_, c) => ({
      id: `s${c % 50}/default/p${Math.floor(c / 50)}/k6`,
      proxy: `p${Math.floor(c / 50)}`,
      scenario: `s${c % 50}`,
      engine: "k6" as const,
      load,
      status: "ok" as const,
      reasons: [],
      runtime: "native" as const,
      tuning: {},
      repetitions: Array.from({ length: repetitions }, (_, i) => syntheticRepetition(i, c)),
      logs: [],
    })),
  };
}

function loadAverage(): void {
  console.log(
    `  load average: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

function report(label: string, m: EngineMeasurement): void {
  const cpu = m.loadgenCpu === undefined ? "?" : m.loadgenCpu.toFixed(2);
  const busy = m.loadgenCoresBusy === undefined ? "?" : m.loadgenCoresBusy.toFixed(2);
  console.log(
    `${label}: ${m.rps.toFixed(0)} req/s, ${m.requests} requests, p50 ${m.latencyMs.p50.toFixed(3)} ms, p99 ${m.latencyMs.p99.toFixed(3)} ms, load generator CPU ${cpu} cores (its cores busy: ${busy})` +
      (m.engineErrors.length ? `, errors: ${m.engineErrors.join("; ")}` : ""),
  );
}

main().catch(async (err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  await stopAll();
  process.exitCode = 1;
});
