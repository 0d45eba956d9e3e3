/**
 * Engine overhead benchmark (`npm run bench`). Prints figures; asserts nothing.
 *
 * (a) proxybench's wrk engine against plain `wrk` on the direct upstream (/api/values), same
 *     threads, connections and duration, alternated; ratio of the medians and of the best runs
 *     (goal >= 0.95; on a shared machine the best runs are the less disturbed ones).
 * (b) the k6 engine's ceiling on one core: k6 pinned to core 0, the upstream on core 1, and
 *     whether classifyRepetition flags the run loadgen-bound.
 * (c) the coefficient of variation of nginx req/s over 5 repetitions, measured where req/s is
 *     nginx's own: the wrk engine at passthrough's `max` level (a closed-model k6 load on two
 *     cores measures k6, see (b)); nginx started natively with the upstream behind it.
 *
 * Bounded: about 90 s of load in total.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { mean, median, sampleStandardDeviation } from "simple-statistics";
import { classifyRepetition, getEngine, probe } from "../src/engines/index.js";
import type { EngineInvocation, EngineMeasurement } from "../src/engines/types.js";
import { ScenarioManifest } from "../src/manifests/schema.js";
import type { Load } from "../src/results/schema.js";
import { findExecutable, PROJECT_ROOT } from "../src/util/paths.js";
import { freePort } from "../src/util/ports.js";
import { runCommand, startProcess, stopAll, type ManagedProcess } from "../src/util/processes.js";

const WRK_SECONDS = 3;
const WRK_PAIRS = 5;
const WRK_CONNECTIONS = 64;
const K6_SECONDS = 5;
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
    const upstream = await startUpstream();
    const passthrough = await scenario("passthrough");
    const check = await probe(upstream.baseUrl, passthrough.manifest);
    if (!check.ok)
      throw new Error(`the upstream does not serve passthrough correctly: ${check.reasons.join("; ")}`);

    await wrkOverhead(upstream.baseUrl, passthrough, dir);
    loadAverage();
    await k6Ceiling(upstream.baseUrl, passthrough, dir);
    loadAverage();
    await nginxVariation(upstream.port, passthrough, dir);
    loadAverage();
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

async function startUpstream(): Promise<{ baseUrl: string; port: number; proc: ManagedProcess }> {
  const bin = await findExecutable("proxybench-upstream");
  if (!bin) {
    throw new Error(
      "proxybench-upstream not found: build it with `cd upstream && go build -o ../.tools/bin/proxybench-upstream .`",
    );
  }
  const proc = await startProcess({
    name: "upstream",
    command: bin,
    args: ["--listen", "127.0.0.1:0"],
    cpus: TARGET,
  });
  for (let i = 0; i < 100; i++) {
    const port = /listening on 127\.0\.0\.1:(\d+)/.exec(proc.output())?.[1];
    if (port) return { baseUrl: `http://127.0.0.1:${port}`, port: Number(port), proc };
    if (!proc.alive()) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the upstream did not start: ${proc.output()}`);
}

/** Plain wrk, as a user would run it: `wrk -t1 -c64 -d5s URL`, req/s from its stdout. */
async function rawWrk(url: string): Promise<number> {
  const wrk = await findExecutable("wrk");
  if (!wrk) throw new Error("wrk not found: apt-get install wrk");
  const { code, output } = await runCommand("taskset", [
    "-c",
    LOADGEN.join(","),
    wrk,
    "-t",
    String(LOADGEN.length),
    "-c",
    String(WRK_CONNECTIONS),
    "-d",
    `${WRK_SECONDS}s`,
    url,
  ]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  if (code !== 0 || !Number.isFinite(rps)) throw new Error(`wrk failed (${code}): ${output}`);
  return rps;
}

async function wrkOverhead(
  baseUrl: string,
  s: { manifest: ScenarioManifest; dir: string },
  dir: string,
): Promise<void> {
  console.log(
    `\n(a) wrk engine vs plain wrk: direct upstream, /api/values, ${LOADGEN.length} thread, ${WRK_CONNECTIONS} connections, ${WRK_SECONDS} s, ${WRK_PAIRS} alternated pairs`,
  );
  const load: Load = { label: "bench", model: "max-throughput", connections: WRK_CONNECTIONS };
  const raw: number[] = [];
  const engine: number[] = [];
  const engineCpu: number[] = [];
  for (let i = 0; i < WRK_PAIRS; i++) {
    raw.push(await rawWrk(`${baseUrl}/api/values`));
    const m = await getEngine("wrk").run(invocation(s, load, WRK_SECONDS, baseUrl, dir, `wrk-${i}`));
    report(`  pair ${i + 1}: plain ${raw[i]!.toFixed(0)} req/s, engine`, m);
    engine.push(m.rps);
    if (m.loadgenCpu !== undefined) engineCpu.push(m.loadgenCpu);
  }
  const ratio = median(engine) / median(raw);
  console.log(`  median: plain ${median(raw).toFixed(0)} req/s, engine ${median(engine).toFixed(0)} req/s`);
  console.log(
    `  ratio engine/plain: median ${ratio.toFixed(3)}, best of each ${(Math.max(...engine) / Math.max(...raw)).toFixed(3)} (goal >= 0.95)`,
  );
  if (engineCpu.length) console.log(`  wrk CPU during the engine runs: ${mean(engineCpu).toFixed(2)} cores`);
}

async function k6Ceiling(
  baseUrl: string,
  s: { manifest: ScenarioManifest; dir: string },
  dir: string,
): Promise<void> {
  console.log(
    `\n(b) k6 engine ceiling on one core: passthrough (with its body check), ${K6_CEILING_VUS} VUs, ${K6_SECONDS} s, direct upstream`,
  );
  const load: Load = { label: "bench", model: "constant-vus", vus: K6_CEILING_VUS };
  const m = await getEngine("k6").run(invocation(s, load, K6_SECONDS, baseUrl, dir, "k6-ceiling"));
  report("  k6", m);
  const c = classifyRepetition(m, { loadgenCores: LOADGEN.length });
  console.log(`  classified: ${c.status}${c.reasons.length ? ` (${c.reasons.join("; ")})` : ""}`);
  const bare = await bareK6(`${baseUrl}/api/values`, dir);
  console.log(
    `  plain k6 (one GET per iteration, no checks or counters), same load: ${bare.toFixed(0)} req/s`,
  );
  console.log(`  engine/plain: ${(m.rps / bare).toFixed(3)}`);
}

/** Plain k6 (bench/bare.k6.js) on the same core and load: req/s from its own summary. */
async function bareK6(url: string, dir: string): Promise<number> {
  const { path: k6 } = await getEngine("k6").locate();
  const summary = path.join(dir, "k6-bare.json");
  const { code, output } = await runCommand(
    "taskset",
    [
      "-c",
      LOADGEN.join(","),
      k6,
      "run",
      "--quiet",
      "--no-usage-report",
      "--address",
      "",
      path.join(PROJECT_ROOT, "bench", "bare.k6.js"),
    ],
    {
      env: {
        K6_NO_USAGE_REPORT: "true",
        BENCH_URL: url,
        BENCH_VUS: String(K6_CEILING_VUS),
        BENCH_SECONDS: String(K6_SECONDS),
        BENCH_SUMMARY: summary,
      },
    },
  );
  if (code !== 0) throw new Error(`plain k6 failed (${code}): ${output}`);
  const data = JSON.parse(await readFile(summary, "utf8")) as {
    metrics: { http_reqs: { values: { rate: number } } };
  };
  return data.metrics.http_reqs.values.rate;
}

async function startNginx(upstreamPort: number, dir: string): Promise<{ baseUrl: string }> {
  const nginx = await findExecutable("nginx");
  if (!nginx) throw new Error("nginx not found: apt-get install nginx-light");
  const workdir = path.join(dir, "nginx");
  await mkdir(workdir, { recursive: true });
  const port = await freePort();
  const values: Record<string, string> = {
    listenHost: "127.0.0.1",
    listenPort: String(port),
    upstreamHost: "127.0.0.1",
    upstreamPort: String(upstreamPort),
    cores: String(TARGET.length),
    cpuList: TARGET.join(","),
    workdir,
    dir: path.join(PROJECT_ROOT, "proxies", "nginx"),
  };
  const template = await readFile(path.join(PROJECT_ROOT, "proxies", "nginx", "nginx.conf"), "utf8");
  const conf = template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
  await writeFile(path.join(workdir, "nginx.conf"), conf);
  const proc = await startProcess({
    name: "nginx",
    command: nginx,
    args: ["-p", workdir, "-c", path.join(workdir, "nginx.conf"), "-e", "stderr"],
    cpus: TARGET,
    logFile: path.join(workdir, "nginx.log"),
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) return { baseUrl };
    } catch {
      // not up yet
    }
    if (!proc.alive()) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `nginx did not come up: ${await readFile(path.join(workdir, "nginx.log"), "utf8").catch(() => "")}`,
  );
}

async function nginxVariation(
  upstreamPort: number,
  s: { manifest: ScenarioManifest; dir: string },
  dir: string,
): Promise<void> {
  const load = s.manifest.loads.find((l) => l.model === "max-throughput");
  if (!load) throw new Error("scenario passthrough has no max-throughput level");
  console.log(
    `\n(c) nginx req/s over ${CV_REPETITIONS} repetitions: wrk engine, passthrough '${load.label}' load (${load.connections ?? "?"} connections), ${CV_SECONDS} s each after a ${CV_WARMUP_SECONDS} s warm-up; nginx and the upstream on core ${TARGET.join(",")}`,
  );
  const { baseUrl } = await startNginx(upstreamPort, dir);
  const check = await probe(baseUrl, s.manifest);
  if (!check.ok) throw new Error(`nginx does not serve passthrough correctly: ${check.reasons.join("; ")}`);
  await getEngine("wrk").run(invocation(s, load, CV_WARMUP_SECONDS, baseUrl, dir, "nginx-warmup"));
  const rps: number[] = [];
  for (let i = 0; i < CV_REPETITIONS; i++) {
    const m = await getEngine("wrk").run(invocation(s, load, CV_SECONDS, baseUrl, dir, `nginx-${i}`));
    const c = classifyRepetition(m, { loadgenCores: LOADGEN.length });
    report(`  repetition ${i + 1} [${c.status}]`, m);
    rps.push(m.rps);
  }
  const cv = sampleStandardDeviation(rps) / mean(rps);
  console.log(
    `  mean ${mean(rps).toFixed(0)} req/s, sd ${sampleStandardDeviation(rps).toFixed(0)}, CV ${(cv * 100).toFixed(2)}%`,
  );
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
