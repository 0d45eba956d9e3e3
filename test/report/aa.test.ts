import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as engines from "../../src/engines/index.js";
import { compareResults, comparisonHeadline, type Comparison } from "../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../src/report/compare-markdown.js";
import { readResults } from "../../src/results/io.js";
import type { Results } from "../../src/results/schema.js";
import { runBenchmark } from "../../src/runner/run.js";

// Real runs: the upstream, nginx and k6 through the runner, 10 (A/A) or 5 repetitions of 1 s at a fixed
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
    interleaved = await run(path.join(tmp, "aa"), ["nginx", "nginx-b"], "base", 10);
  }, 240_000);
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("A/A: the same proxy measured twice is never a regression or an improvement", async () => {
    const base = onlyProxy(interleaved, "nginx", "nginx");
    const head = onlyProxy(interleaved, "nginx-b", "nginx");
    const comparison = compareResults(base, head);
    const markdown = renderComparisonMarkdown(comparison);
    await writeFile(path.join(OUTPUT, "aa.md"), markdown);
    expect(comparison.cells).toHaveLength(1);
    expect(comparison.notCompared).toEqual([]);
    expect(comparison.counts.regressed).toBe(0);
    expect(comparison.counts.improved).toBe(0);
    const verdicts = verdictsOf(comparison);
    // an open model at 200/s: the throughput is the arrival rate, whatever the noise
    expect(verdicts.rps).toBe("unchanged");
    // p50 behind a 20 ms upstream: unchanged on a quiet machine; on a loaded one the interval
    // (at 1 - 0.05/4) can be wider than ±5%, but the estimate stays near 0 and is never a verdict
    expect(["unchanged", "inconclusive"]).toContain(verdicts.p50);
    const p50 = comparison.cells[0]?.metrics.find((m) => m.metric === "p50");
    expect(Math.abs(p50?.hlChangePct ?? 99)).toBeLessThan(5);
    // the mean and p99 catch the scheduling spikes of this shared machine (load average above 10
    // while other suites run): they may be too noisy to call unchanged, never a change
    expect(["unchanged", "inconclusive"]).toContain(verdicts.mean);
    expect(["unchanged", "inconclusive"]).toContain(verdicts.p99);
    expect(markdown.split("\n")[0]).toMatch(/^## proxybench compare: 0 regressions, 0 improvements, /);
  });

  it("an upstream 20 ms slower (40 ms instead of 20) is a latency regression", async () => {
    const slow = await run(path.join(tmp, "slow"), ["nginx"], "slow", 5);
    const base = onlyProxy(interleaved, "nginx", "nginx");
    const comparison = compareResults(base, slow);
    await writeFile(path.join(OUTPUT, "regression.md"), renderComparisonMarkdown(comparison));
    const verdicts = verdictsOf(comparison);
    expect(verdicts.mean).toBe("regressed");
    expect(verdicts.p50).toBe("regressed");
    expect(verdicts.rps).not.toBe("improved");
    const p50 = comparison.cells[0]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.head.median).toBeGreaterThan(40);
    expect(p50?.ci?.[0]).toBeGreaterThan(50);
    expect(comparisonHeadline(comparison)).toMatch(/^[1-4] regressions?, 0 improvements/);
  }, 240_000);
});
