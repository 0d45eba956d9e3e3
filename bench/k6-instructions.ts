/**
 * k6's own work per request in instructions (`npm run bench:k6-instructions`): plain k6
 * (bench/bare.k6.js, one `http.get` per iteration) against the k6 engine's script for
 * passthrough (scenarios/lib/proxybench.js with its counters and sampled body check), each under
 * callgrind. Unlike req/s, the count does not depend on the machine's other tenants, so it says
 * what the library costs even on a busy machine. Prints figures; asserts nothing.
 *
 * - The garbage collector is off (GOGC=off): its cycles land where they will and swing a short
 *   run by a quarter; what is left is k6's and the script's own work per request.
 * - Async preemption is off (GODEBUG=asyncpreemptoff=1): callgrind does not survive Go's
 *   preemption signals.
 * - Per request = (count of 3000 requests - count of 1000) / 2000, so k6's start and the 64 VUs'
 *   initialisation cancel out. Each count is taken twice.
 * Bounded: 8 runs of k6 under callgrind, about 4 minutes.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { getEngine } from "../src/engines/index.js";
import { buildK6Args, buildK6Config } from "../src/engines/k6/config.js";
import { eventCost, parseCallgrind } from "../src/measures/counted/callgrind.js";
import { findValgrind } from "../src/measures/counted/valgrind.js";
import { ScenarioManifest } from "../src/manifests/schema.js";
import { PROJECT_ROOT } from "../src/util/paths.js";
import { runCommand, stopAll } from "../src/util/processes.js";
import { startUpstream } from "./upstream.js";

const VUS = 64;
const FEW = 1000;
const MANY = 3000;
const TIMES = 2;
const cores = os.availableParallelism();
const K6_CORE = 0;
const TARGET = [Math.min(1, cores - 1)];

interface Script {
  name: string;
  file: string;
  env: (requests: number, summary: string) => Record<string, string>;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "proxybench-k6-instructions-"));
  try {
    const upstream = await startUpstream(TARGET);
    const scripts = await scriptsFor(upstream.baseUrl);
    console.log(
      `k6 instructions per request: ${VUS} VUs, (${MANY} - ${FEW} requests) / ${MANY - FEW}, GOGC=off`,
    );
    const perRequest: Record<string, number[]> = {};
    for (let t = 0; t < TIMES; t++) {
      for (const script of scripts) {
        const few = await instructions(script, FEW, dir);
        const many = await instructions(script, MANY, dir);
        const value = (many - few) / (MANY - FEW);
        (perRequest[script.name] ??= []).push(value);
        console.log(
          `  ${script.name}: ${Math.round(value).toLocaleString("en-US")} instructions per request`,
        );
      }
    }
    const [bare, engine] = scripts.map((s) => mean(perRequest[s.name] ?? []));
    console.log(`\nsummary`);
    console.log(`  plain k6: ${Math.round(bare ?? 0).toLocaleString("en-US")} instructions per request`);
    console.log(`  k6 engine: ${Math.round(engine ?? 0).toLocaleString("en-US")} instructions per request`);
    console.log(
      `  plain / engine (the engine's share of plain k6's rate, by work): ${((bare ?? 0) / (engine ?? 1)).toFixed(3)}`,
    );
  } finally {
    await stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

async function scriptsFor(baseUrl: string): Promise<Script[]> {
  const scenarioDir = path.join(PROJECT_ROOT, "scenarios", "passthrough");
  const scenario = ScenarioManifest.parse(
    parse(await readFile(path.join(scenarioDir, "scenario.yml"), "utf8")),
  );
  const engineConfig = (requests: number, summary: string) =>
    buildK6Config(
      {
        scenario,
        scenarioDir,
        load: { label: "bench", model: "fixed-count", connections: VUS, requests },
        durationS: 600,
        baseUrl,
        cpus: [K6_CORE],
        outDir: path.dirname(summary),
        fileStem: "bench",
      },
      summary,
    );
  return [
    {
      name: "plain k6 (http.get)",
      file: path.join(PROJECT_ROOT, "bench", "bare.k6.js"),
      env: (requests, summary) => ({
        BENCH_URL: `${baseUrl}/api/values`,
        BENCH_VUS: String(VUS),
        BENCH_ITERATIONS: String(requests),
        BENCH_SUMMARY: summary,
      }),
    },
    {
      name: "k6 engine (passthrough)",
      file: path.join(scenarioDir, scenario.script),
      env: (requests, summary) => ({ PROXYBENCH_CONFIG: JSON.stringify(engineConfig(requests, summary)) }),
    },
  ];
}

/** Instructions of one k6 run of `requests` requests under callgrind, every thread. */
async function instructions(script: Script, requests: number, dir: string): Promise<number> {
  const tools = await findValgrind();
  const { path: k6 } = await getEngine("k6").locate();
  const out = path.join(dir, `callgrind-${requests}-${Date.now()}.out`);
  const { code, output } = await runCommand(
    "taskset",
    [
      "-c",
      String(K6_CORE),
      tools.valgrind,
      "--tool=callgrind",
      `--callgrind-out-file=${out}`,
      k6,
      ...buildK6Args(script.file),
    ],
    {
      env: {
        ...script.env(requests, path.join(dir, "summary.json")),
        K6_NO_USAGE_REPORT: "true",
        GOGC: "off",
        GODEBUG: "asyncpreemptoff=1",
      },
      timeoutMs: 600_000,
    },
  );
  if (code !== 0) throw new Error(`k6 under callgrind failed (${code}): ${output.slice(-2000)}`);
  const files = (await readdir(dir)).filter((f) => f.startsWith(path.basename(out)));
  let total = 0;
  for (const file of files) {
    const profile = parseCallgrind(await readFile(path.join(dir, file), "utf8"));
    total += eventCost(profile.events, profile.totals, "Ir");
    await rm(path.join(dir, file));
  }
  return total;
}

await main();
