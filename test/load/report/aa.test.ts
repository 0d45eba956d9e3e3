import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as engines from "../../../src/engines/index.js";
import { compareResults, type Comparison } from "../../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../../src/report/compare-markdown.js";
import { readResults } from "../../../src/results/io.js";
import type { Results } from "../../../src/results/schema.js";
import { runBenchmark } from "../../../src/measures/wall-clock/run.js";

// Real runs: the upstream, nginx and k6 through the runner, 6 (A/A) or 5 repetitions of 1 s at a fixed
// arrival rate of 200 requests/s (scenario test/fixtures/report/scenarios-*/report-aa), with an
// upstream that answers in 20 ms (base) or 40 ms (slow). The 20 ms keep the latencies well above
// the scheduling noise of this shared 2-core machine, where sub-millisecond latencies swing by
// half between repetitions.
const FIXTURES = "test/fixtures/report";
const OUTPUT = "test-output/report";
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
const quiet = { write: () => true };

async function run(
  out: string,
  proxies: string[],
  scenarios: "base" | "slow",
  repetitions: number,
): Promise<Results> {
  const outcome = await runBenchmark(
    {
      proxies,
      scenarios: ["report-aa"],
      scenariosDirs: [path.join(FIXTURES, `scenarios-${scenarios}`)],
      proxiesDirs: [path.join(FIXTURES, "proxies")],
      repetitions,
      durationS: 1,
      cpus,
      out,
    },
    { engines, stdout: quiet, stderr: quiet, handleSignals: false },
  );
  const results = await readResults(out);
  expect(outcome.results.cells.map((c) => c.proxy)).toEqual(proxies);
  return measured(results);
}

/**
 * This machine is shared with other test suites, so the runner may rightly flag a cell
 * loadgen-bound (other processes on the load generator's core). These tests are about compare's
 * statistics on real measurements, so such cells count as measured here; any other status
 * (invalid, failed) fails the test.
 */
function measured(results: Results): Results {
  for (const c of results.cells)
    expect(["ok", "loadgen-bound", "noisy"], `${c.id}: ${c.reasons.join("; ")}`).toContain(c.status);
  return {
    ...results,
    cells: results.cells.map((c) => ({
      ...c,
      status: "ok",
      reasons: [],
      repetitions: c.repetitions.map((r) => ({ ...r, status: "ok", reasons: [] })),
    })),
  };
}

/** The result set of one proxy, under the name `as` (cell ids follow). */
function onlyProxy(results: Results, proxy: string, as: string): Results {
  return {
    ...results,
    settings: { ...results.settings, proxies: [as] },
    cells: results.cells
      .filter((c) => c.proxy === proxy)
      .map((c) => ({ ...c, proxy: as, id: c.id.replace(`/${proxy}/`, `/${as}/`) })),
  };
}

function verdictsOf(c: Comparison): Record<string, string> {
  return Object.fromEntries(c.cells.flatMap((cell) => cell.metrics.map((m) => [m.metric, m.verdict])));
}

describe("compare on real runs", () => {
  let tmp: string;
  let interleaved: Results;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-report-aa-"));
    await mkdir(OUTPUT, { recursive: true });
    // nginx and nginx-b are the same binary and configuration; the runner interleaves their
    // repetitions, so both sets see the same machine, noise and drift.
    interleaved = await run(path.join(tmp, "aa"), ["nginx", "nginx-b"], "base", 6);
  }, 240_000);
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("A/A: the same proxy measured twice, compared as two runs, is never a regression or an improvement", async () => {
    const base = onlyProxy(interleaved, "nginx", "nginx");
    const head = onlyProxy(interleaved, "nginx-b", "nginx");
    const comparison = compareResults(base, head);
    const markdown = renderComparisonMarkdown(comparison);
    await writeFile(path.join(OUTPUT, "aa.md"), markdown);
    expect(comparison.cells).toHaveLength(1);
    expect(comparison.notCompared).toEqual([]);
    // two runs without the spread between runs: no verdict at all
    const verdicts = Object.values(verdictsOf(comparison));
    // the primary metrics tested: p99 and the proxy's CPU per request
    expect(comparison.cells[0]?.metrics.map((m) => m.metric)).toEqual(["p99", "cpuPerRequest"]);
    expect(new Set(verdicts)).toEqual(new Set(["inconclusive"]));
    // an open model at 200/s: the throughput is the arrival rate, shown, not tested; the others shown too
    expect(comparison.cells[0]?.shown.map((m) => m.metric)).toEqual(["rps", "mean", "p50", "peakMemory"]);
    const p50 = comparison.cells[0]?.shown.find((m) => m.metric === "p50");
    expect(Math.abs(p50?.changePct ?? 99)).toBeLessThan(5);
    expect(markdown.split("\n")[0]).toMatch(
      /^## proxybench compare: 0 regressions, 0 improvements, 0 unchanged, /,
    );
  });

  it("an upstream 20 ms slower, in a run of its own: the change observed and named, no verdict without the spread between runs", async () => {
    const slow = await run(path.join(tmp, "slow"), ["nginx"], "slow", 5);
    const base = onlyProxy(interleaved, "nginx", "nginx");
    const comparison = compareResults(base, slow);
    await writeFile(path.join(OUTPUT, "regression.md"), renderComparisonMarkdown(comparison));
    expect(comparison.counts.regressed + comparison.counts.improved).toBe(0);
    const p50 = comparison.cells[0]?.shown.find((m) => m.metric === "p50");
    expect(p50?.head.median).toBeGreaterThan(40);
    expect(p50?.changePct).toBeGreaterThan(50);
    const p99 = comparison.cells[0]?.metrics.find((m) => m.metric === "p99");
    expect(p99?.changePct).toBeGreaterThan(20);
    expect(p99?.why).toMatch(
      /^observed change \+\d+\.\d\d%; runs at different times: the spread between runs is unknown/,
    );
  }, 240_000);
});
