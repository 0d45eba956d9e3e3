import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  faultScenarioDir,
  incompleteCells,
  killOwn,
  leftAfter,
  processTree,
  quietDeps,
  resultsProblem,
  runCli,
  runKillingK6Once,
} from "../../../../bench/fault-injection.js";
import { readResults } from "../../../../src/results/io.js";
import { runBenchmark } from "../../../../src/measures/wall-clock/run.js";

// Faults injected into short real runs (kill -9 of the CLI, k6, a proxy, the upstream at random
// moments): nothing of the run is left, results.json stays valid, --resume completes the cells.
// About 40 s of load; the many-kills figures are bench/faults.ts (`npm run bench:faults`).

const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
const random = (lowMs: number, highMs: number) => () => lowMs + Math.random() * (highMs - lowMs);

let tmp: string;
let scenarios: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "pb-faults-"));
  scenarios = await faultScenarioDir(path.join(tmp, "scenarios"));
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

const request = (out: string, proxies: string[], repetitions: number) => ({
  proxies,
  scenarios: ["faults"],
  scenariosDirs: [scenarios],
  repetitions,
  durationS: 1,
  warmupS: 0,
  out,
  cpus,
});

describe("faults injected into real runs", () => {
  it("kill -9 of the CLI: nothing of the run is left, results.json is valid, --resume completes the cells", async () => {
    const out = path.join(tmp, "cli");
    const proxies = ["direct", "nginx"];
    const delay = random(500, 3000)(); // its children are up by then
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
    const killed = await runCli([...args, ...run, "--out", out], { cwd: tmp, killAfterMs: delay });
    expect(killed.killed, `killed after ${delay} ms: ${killed.stderr}`).toBe(true);
    expect(killed.snapshot.length).toBeGreaterThan(0);
    expect(await leftAfter(killed.snapshot, out, 5000)).toEqual([]);
    expect(await resultsProblem(out)).toBeUndefined();

    const resumed = await runCli(["run", "--resume", out], { cwd: tmp });
    expect([0, 1], resumed.stderr).toContain(resumed.code);
    expect(await incompleteCells(out, proxies, 2)).toEqual([]);
  });

  it("kill -9 of k6 in every repetition: each is measured again, no cell fails", async () => {
    const out = path.join(tmp, "k6");
    const { results, kills } = await runKillingK6Once(
      { ...request(out, ["nginx"], 2), retries: 2 },
      random(0, 700),
    );
    expect(kills).toBeGreaterThan(0);
    const [cell] = results.cells;
    expect(cell?.status, cell?.reasons.join("; ")).not.toBe("failed");
    // each killed repetition was measured again (a noisy one may have been too)
    expect(cell?.repetitions.filter((r) => (r.attempts ?? 1) > 1).length).toBeGreaterThanOrEqual(kills);
    expect(processTree(process.pid)).toEqual([]);
  });

  it("kill -9 of the proxy and of the upstream: failed cells with the reason, nothing left, --resume completes", async () => {
    const out = path.join(tmp, "targets");
    const proxies = ["nginx", "haproxy"];
    const killed: string[] = [];
    const kill = (what: string, pattern: RegExp, delayMs: number) =>
      setTimeout(() => killOwn(pattern) !== undefined && killed.push(what), delayMs);
    const deps = quietDeps((event) => {
      if (event.phase !== "start") return;
      // rounds go nginx, haproxy, then haproxy, nginx: nginx's master in its first repetition,
      // the upstream in haproxy's second
      if (event.round === 0 && event.cellId.includes("/nginx/"))
        kill("nginx", /nginx: master/, random(100, 700)());
      if (event.round === 1 && event.cellId.includes("/haproxy/"))
        kill("upstream", /proxybench-upstream/, random(100, 700)());
    });
    await runBenchmark(request(out, proxies, 2), deps);
    expect(killed).toEqual(["nginx", "upstream"]);
    const results = await readResults(out);
    expect(results.cells.map((c) => [c.proxy, c.status])).toEqual([
      ["nginx", "failed"],
      ["haproxy", "failed"],
    ]);
    expect(results.cells[0]?.reasons.join("; ")).toMatch(
      /nginx exited during repetition 1 \(signal SIGKILL\)/,
    );
    expect(results.cells[1]?.reasons.join("; ")).toMatch(/the upstream server exited during repetition 2/);
    expect(await leftAfter([], out, 5000)).toEqual([]);
    expect(processTree(process.pid)).toEqual([]);

    const resumed = await runBenchmark({ resume: out }, quietDeps(undefined));
    expect(resumed.results.cells.map((c) => [c.id, c.finishedAt])).toEqual(
      results.cells.map((c) => [c.id, c.finishedAt]),
    );
    expect(await resultsProblem(out)).toBeUndefined();
  });
});
