import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as engines from "../../../../src/engines/index.js";
import { compareVariants } from "../../../../src/report/compare.js";
import { readResults } from "../../../../src/results/io.js";
import type { Results } from "../../../../src/results/schema.js";
import { runBenchmark } from "../../../../src/measures/wall-clock/run.js";
import type { RunRequest } from "../../../../src/runner/settings.js";
import { liveProcesses } from "../../../../src/util/processes.js";
import { startNeighbour, type Neighbour } from "../../../../bench/neighbour.js";
import { collectText, lightScenarioDir, measuredStatus } from "../../../support/runner/helpers.js";

// Real upstream, nginx and k6 through the runner; a few seconds per run.
const twoCores = os.cpus().length >= 2;
const cpus = twoCores ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
const proxyCore = twoCores ? "1" : "0";

async function run(req: RunRequest): Promise<{ results: Results; exitCode: number; log: string }> {
  const stderr = collectText();
  const outcome = await runBenchmark(
    { durationS: 1, warmupS: 0.5, cpus, ...req },
    { engines, stderr, stdout: collectText(), handleSignals: false },
  );
  return { results: await readResults(outcome.dir), exitCode: outcome.exitCode, log: stderr.text() };
}

/** A busy process pinned to the proxy's core, bounded in time, outside this process's tree. */
function busyLoop(seconds: number): Neighbour {
  return startNeighbour(proxyCore, seconds);
}

describe("variant runs", () => {
  let tmp: string;
  let base: string;
  let head: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-variants-"));
    base = path.join(tmp, "base");
    head = path.join(tmp, "head");
    await lightScenarioDir({ root: path.join(base, "scenarios") });
    await lightScenarioDir({ root: path.join(head, "scenarios"), latencyMs: 5 });
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("runs both variants side by side in ABBA rounds, each with its own upstream, and compares them paired", async () => {
    const out = path.join(tmp, "ab");
    const { results, log } = await run({
      proxies: ["direct", "nginx"],
      scenarios: ["light"],
      repetitions: 2,
      out,
      variants: [
        { name: "base", dir: base },
        { name: "head", dir: head },
      ],
      noiseLimit: 2, // this test is about the order, not the machine's quiet
      roundOrder: "abba",
    });
    expect(results.schemaVersion).toBe(2);
    expect(results.settings.variants?.map((v) => v.name)).toEqual(["base", "head"]);
    expect(results.cells.map((c) => c.id)).toEqual([
      "light/default/direct/k6@base",
      "light/default/nginx/k6@base",
      "light/default/direct/k6@head",
      "light/default/nginx/k6@head",
    ]);
    const order = results.cells
      .flatMap((c) =>
        c.repetitions.map((r) => ({ who: `${c.proxy}@${c.variant}`, round: r.round, at: r.startedAt })),
      )
      .sort((a, b) => a.at.localeCompare(b.at))
      .map((r) => `${r.who}#${r.round}`);
    expect(order).toEqual([
      "direct@base#0",
      "nginx@base#0",
      "direct@head#0",
      "nginx@head#0",
      "nginx@head#1",
      "direct@head#1",
      "nginx@base#1",
      "direct@base#1",
    ]);
    expect(results.cells.map((c) => c.upstream?.latencyMs)).toEqual([0, 0, 5, 5]);
    expect(existsSync(path.join(out, "logs", "light-default-upstream.log"))).toBe(true);
    expect(existsSync(path.join(out, "logs", "light-default-upstream-2.log"))).toBe(true);
    expect(existsSync(path.join(out, "logs", "light-default-nginx@head.log"))).toBe(true);
    expect(log).toMatch(/variants: base=.*, head=.*; 2 rounds/);
    expect(log).toMatch(/round order: abba/);
    for (const c of results.cells)
      for (const r of c.repetitions) expect(r.noise?.otherCpu).toBeGreaterThanOrEqual(0);
    const comparison = compareVariants(results);
    // On a busy machine a cell may be loadgen-bound or noisy: then it is named, not compared.
    expect(comparison.cells.length + comparison.notCompared.length).toBe(2);
    if (comparison.cells.length > 0) {
      expect(comparison.label).toBe("paired over 2 rounds");
      expect(comparison.notes.join("\n")).toMatch(/the variants ran different scenario settings/);
    }
    // Only a head with +5 ms: its p50 is the upstream's 5 ms more.
    const p50 = (v: string) =>
      results.cells.find((c) => c.id === `light/default/nginx/k6@${v}`)!.repetitions[0]!.latencyMs.p50;
    expect(p50("head") - p50("base")).toBeGreaterThan(4);
    expect(liveProcesses()).toEqual([]);
  });

  it("--repetitions auto --budget: rounds planned before the run, the block stopped at a look once every metric is decided", async () => {
    const out = path.join(tmp, "auto");
    const slow = path.join(tmp, "slow");
    await lightScenarioDir({ root: path.join(slow, "scenarios"), latencyMs: 50 });
    const { results, log } = await run({
      proxies: ["direct"],
      scenarios: ["light"],
      autoRounds: true,
      budgetMinutes: 2,
      out,
      noiseLimit: 2, // this test is about the rounds, not the machine's quiet
      // its plan sized for the five metrics a cell may test (direct measures no proxy cost: three)
      testedMetrics: ["mean", "p50", "p99", "cpuPerRequest", "peakMemory"],
      variants: [
        { name: "base", dir: base },
        { name: "head", dir: slow },
      ],
    });
    // 5 tested metrics planned per cell (req/s fixed by the arrival rate); 2 cells x (1 s + 1.5 s)
    // a round, 7 s besides: 22 rounds fit in 2 minutes; looks at 11, 17 and 22
    expect(results.settings.sequential).toMatchObject({ alpha: 0.05, tests: 5, budgetMinutes: 2 });
    expect(results.settings.sequential?.looks.map((l) => l.rounds)).toEqual([11, 17, 22]);
    expect(results.settings.repetitions).toBe(22);
    // the head's upstream answers 50 ms later: decided at the first look (the second when a
    // disturbed round of this shared machine turned one sign), never run to the last
    const rounds = results.cells[0]!.repetitions.length;
    expect([11, 17]).toContain(rounds);
    for (const c of results.cells)
      expect(c.repetitions.map((r) => r.round)).toEqual([...Array(rounds).keys()]);
    const look = rounds === 11 ? 1 : 2;
    expect(log).toContain(
      `light-default: stopped after ${rounds} rounds (look ${look} of 3): every metric of its 3 decided`,
    );
    // a busy shared machine may rightly flag a cell loadgen-bound or noisy: measured all the same
    for (const c of results.cells) expect(measuredStatus(c)).toBe("measured");
    const measured = results.cells.map((c) => ({ ...c, status: "ok" as const, reasons: [] }));
    const comparison = compareVariants({ ...results, cells: measured });
    expect(comparison.planned).toBe(true);
    const p50 = comparison.cells[0]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.verdict).toBe("regressed");
    expect(p50?.look).toBeLessThanOrEqual(look);
    expect(comparison.looks.map((l) => [l.rounds, l.cells])).toEqual([
      [11, 1],
      [17, rounds === 17 ? 1 : 0],
      [22, 0],
    ]);
  }, 240_000);

  it("--resume finishes the unfinished variant cells and keeps the others", async () => {
    const out = path.join(tmp, "resume");
    await run({
      proxies: ["nginx"],
      scenarios: ["light"],
      repetitions: 2,
      out,
      noiseLimit: 2,
      variants: [
        { name: "base", dir: base },
        { name: "head", dir: head },
      ],
    });
    const file = path.join(out, "results.json");
    const saved = JSON.parse(await readFile(file, "utf8")) as Results;
    const kept = saved.cells[0]!;
    saved.cells = [kept]; // as if interrupted before the head cell finished
    delete saved.finishedAt;
    await writeFile(file, JSON.stringify(saved));
    const { results } = await run({ resume: out });
    expect(results.cells.map((c) => c.id)).toEqual([
      "light/default/nginx/k6@base",
      "light/default/nginx/k6@head",
    ]);
    expect(results.cells[0]?.repetitions.map((r) => r.startedAt)).toEqual(
      kept.repetitions.map((r) => r.startedAt),
    );
    expect(results.cells[1]?.repetitions.map((r) => r.round)).toEqual([0, 1]);
    expect(results.settings.variants).toEqual(saved.settings.variants);
  });

  it("refuses a variant folder with neither proxies/ nor scenarios/, naming the flag", async () => {
    await expect(
      run({
        out: path.join(tmp, "bad"),
        variants: [
          { name: "a", dir: tmp },
          { name: "b", dir: base },
        ],
      }),
    ).rejects.toThrow(/--variant a=.*: holds neither proxies\/ nor scenarios\//);
  });
});

describe("noise and dropped iterations", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-noise-"));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("a busy process pinned to the proxy's core makes a repetition noisy: measured again, then the cell is noisy", async () => {
    const scenarios = await lightScenarioDir({ root: path.join(tmp, "s1") });
    const busy = busyLoop(30);
    try {
      const { results, exitCode } = await run({
        proxies: ["nginx"],
        scenarios: ["light"],
        scenariosDirs: [scenarios],
        repetitions: 1,
        warmupS: 0,
        retries: 1,
        out: path.join(tmp, "busy"),
      });
      const cell = results.cells[0]!;
      const rep = cell.repetitions[0]!;
      expect(rep.noise?.otherCpu).toBeGreaterThan(0.3);
      expect(rep.attempts).toBe(2);
      expect(cell.redone?.noisy).toBe(1);
      expect(cell.status).toBe("noisy");
      expect(cell.reasons.join()).toMatch(
        /\d\.\d+ core used by other processes.* on the benchmark's cores \(limit 0.05(; besides, \d\.\d+ core stolen by the hypervisor)?\), still after 1 more try/,
      );
      expect(exitCode).toBe(1);
    } finally {
      busy.stop();
    }
  });

  it("a repetition with dropped iterations is redone alone; sized from the warm-ups, one pool per block, it drops none", async () => {
    // 100/s at 30 ms with 1 VU: the pool runs out.
    const scenarios = await lightScenarioDir({
      root: path.join(tmp, "s2"),
      latencyMs: 30,
      rate: 100,
      vus: 1,
    });
    const common = {
      proxies: ["direct"],
      scenarios: ["light"],
      scenariosDirs: [scenarios],
      repetitions: 1,
      noiseLimit: 2,
    };
    const cold = await run({ ...common, warmupS: 0, retries: 1, out: path.join(tmp, "cold") });
    const cell = cold.results.cells[0]!;
    expect(cell.redone?.dropped).toBe(1);
    expect(cell.repetitions).toHaveLength(1);
    expect(cell.repetitions[0]?.attempts).toBe(2);
    expect(cell.status).toBe("loadgen-bound");
    expect(cell.reasons.join()).toMatch(/iterations? dropped/);
    // two proxies of one block: one pool, from the slower warm-up, so that both get the same load
    const warm = await run({
      ...common,
      proxies: ["direct", "nginx"],
      warmupS: 1,
      out: path.join(tmp, "warm"),
    });
    const [direct, nginx] = warm.results.cells;
    expect(direct!.loadgenVus).toBeGreaterThanOrEqual(6);
    expect(nginx!.loadgenVus).toBe(direct!.loadgenVus);
    for (const sized of [direct!, nginx!]) expect(sized.repetitions[0]?.droppedIterations).toBe(0);
  });
});
