/**
 * Fault-injection benchmark (`npm run bench:faults`; it runs real load: under
 * `flock /tmp/pb-load.lock`). Prints figures; asserts nothing.
 *
 * (a) 20 runs of the CLI (direct and nginx, 2 repetitions of 1 s, no retries) killed with
 *     SIGKILL at a random moment, 0 to 4 s after the run said where its results go: the processes
 *     of the run still there 5 s after the kill, the results.json files that do not validate, and
 *     the `run --resume` that end with the cells a clean run would have (one finished cell per
 *     proxy, every repetition, none failed).
 * (b) in-process runs (nginx, 5 repetitions of 1 s, --retries 2) where k6 is killed with SIGKILL
 *     0 to 0.7 s after it started, in the first try of every repetition, until 20 k6 processes
 *     were killed: the cells that failed.
 * Targets: (a) 0 processes left, 0 invalid results.json, 20 of 20 resumes complete; (b) 0 cells
 * failed for a single crash. `--only cli` or `--only k6` runs one part.
 *
 * Bounded: (a) about 3 minutes, (b) about 1.5 minutes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  faultScenarioDir,
  incompleteCells,
  leftAfter,
  resultsProblem,
  runCli,
  runKillingK6Once,
} from "./fault-injection.js";

const CLI_KILLS = 20;
const K6_KILLS = 20;
const MAX_K6_RUNS = 8;
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";

async function cliKills(tmp: string, scenarios: string): Promise<void> {
  const proxies = ["direct", "nginx"];
  const left: number[] = [];
  const invalid: string[] = [];
  const incomplete: string[] = [];
  for (let i = 1; i <= CLI_KILLS; i++) {
    const out = path.join(tmp, `cli-${i}`);
    const delayMs = Math.round(Math.random() * 4000);
    const args = [
      "run",
      "--proxies",
      proxies.join(","),
      "--scenarios",
      "faults",
      "--scenarios-dir",
      scenarios,
    ];
    const run = ["--duration", "1", "--warmup", "0", "--repetitions", "2", "--retries", "0", "--cpus", cpus];
    const killed = await runCli([...args, ...run, "--out", out], { cwd: tmp, killAfterMs: delayMs });
    const still = await leftAfter(killed.snapshot, out, 5000);
    left.push(still.length);
    const problem = await resultsProblem(out);
    if (problem) invalid.push(`kill ${i}: ${problem}`);
    const resumed = await runCli(["run", "--resume", out], { cwd: tmp });
    const missing = await incompleteCells(out, proxies, 2);
    if (missing.length > 0 || resumed.code === null || resumed.code > 1) {
      const said = resumed.stderr.trim().split("\n").slice(-3).join(" | ");
      incomplete.push(`kill ${i}: exit ${resumed.code}; ${missing.join("; ")}; it said: ${said}`);
    }
    const when = killed.killed ? `${delayMs} ms in` : "after it ended";
    console.log(
      `cli kill ${i}: ${when}, ${killed.snapshot.length} processes; left after 5 s: ${still.length}`,
    );
    for (const p of still) console.log(`  left: ${p.pid} ${p.cmd}`);
  }
  console.log(`\n(a) ${CLI_KILLS} random kills of the CLI`);
  console.log(
    `  processes left 5 s after the kill: ${left.reduce((a, b) => a + b, 0)} (per kill: ${left.join(" ")})`,
  );
  console.log(`  invalid results.json: ${invalid.length}${invalid.length ? `: ${invalid.join(" | ")}` : ""}`);
  console.log(`  resumes complete: ${CLI_KILLS - incomplete.length} of ${CLI_KILLS}`);
  for (const line of incomplete) console.log(`  incomplete: ${line}`);
}

async function k6Kills(tmp: string, scenarios: string): Promise<void> {
  let kills = 0;
  let failed = 0;
  let cells = 0;
  let redone = 0;
  for (let run = 1; kills < K6_KILLS && run <= MAX_K6_RUNS; run++) {
    const request = {
      proxies: ["nginx"],
      scenarios: ["faults"],
      scenariosDirs: [scenarios],
      repetitions: Math.min(5, K6_KILLS - kills),
      durationS: 1,
      warmupS: 0,
      retries: 2,
      cpus,
      out: path.join(tmp, `k6-${run}`),
    };
    const outcome = await runKillingK6Once(request, () => Math.random() * 700);
    kills += outcome.kills;
    for (const cell of outcome.results.cells) {
      cells += 1;
      redone += cell.repetitions.filter((r) => (r.attempts ?? 1) > 1).length;
      if (cell.status === "failed") {
        failed += 1;
        console.log(`  failed: ${cell.id}: ${cell.reasons.join("; ")}`);
      }
    }
    console.log(
      `k6 run ${run}: ${outcome.kills} k6 killed, ${outcome.results.cells.map((c) => c.status).join(",")}`,
    );
  }
  console.log(`\n(b) ${kills} random kills of k6 in ${cells} cells`);
  console.log(`  repetitions measured again: ${redone}`);
  console.log(`  cells failed: ${failed}`);
}

async function main(): Promise<void> {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  const tmp = await mkdtemp(path.join(os.tmpdir(), "pb-bench-faults-"));
  try {
    const scenarios = await faultScenarioDir(path.join(tmp, "scenarios"));
    if (only !== "k6") await cliKills(tmp, scenarios);
    if (only !== "cli") await k6Kills(tmp, scenarios);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
