import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compareResults, type Comparison } from "../../../src/report/compare.js";
import { historyFromData } from "../../../src/report/compare-history.js";
import { serializeDataJs } from "../../../src/publish/datajs.js";
import type { Results } from "../../../src/results/schema.js";
import { historyOf, wobble, type SeriesSpec } from "../../support/changes/history.js";
import { runCli } from "../../support/commands/cli.js";
import { cell, results, type RepSpec } from "../../support/report/build.js";

// compare --history through the CLI: the history's series cut at their last change point by
// the real Apache Otava (.tools/venv, installed by scripts/setup.sh --for-tests).

/** Seven repetitions around (rps, p50), ±1%. */
function reps(rps: number, p50: number): RepSpec[] {
  return [0, 0.01, -0.01, 0.005, -0.005, 0.008, -0.008].map((n) => ({
    rps: rps * (1 + n),
    p50: p50 * (1 - n),
  }));
}

/** nginx's four tested figures of scenario small, one value per past run from `p50At(i)`. */
function nginxHistory(runs: number, p50At: (i: number) => number): SeriesSpec[] {
  const values = (scale: number) => Array.from({ length: runs }, (_, i) => wobble(p50At(i) * scale, 0.01, i));
  return [
    { suite: "small latency", bench: "nginx p50", values: values(1) },
    { suite: "small latency", bench: "nginx p99", values: values(3) },
    { suite: "small latency", bench: "nginx mean", values: values(1.1) },
    {
      suite: "small throughput",
      bench: "nginx req/s",
      biggerIsBetter: true,
      values: Array.from({ length: runs }, (_, i) => wobble(75000 / p50At(i), 0.01, i)),
    },
  ];
}

async function writeRun(dir: string, name: string, run: Results): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(run));
  return file;
}

describe("proxybench compare BASE HEAD --history (Apache Otava)", () => {
  it("a flat history: a 60% slower head regresses (exit 1 with --fail-on-regression), an A/A does not", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-compare-history-"));
    const base = await writeRun(dir, "base", results([cell("nginx", reps(15000, 5))]));
    const head = await writeRun(dir, "head", results([cell("nginx", reps(10000, 8))]));
    const history = path.join(dir, "data.js");
    await writeFile(history, serializeDataJs(historyOf(nginxHistory(100, () => 5))));
    const out = path.join(dir, "compare.md");
    expect((await runCli(["compare", base, head, "--history", history, "--out-file", out])).code).toBe(0);
    expect(await readFile(out, "utf8")).toMatch(/^## proxybench compare: 4 regressions/);
    const failing = await runCli(["compare", base, head, "--history", history, "--fail-on-regression"]);
    expect(failing.code).toBe(1);
    const json = path.join(dir, "compare.json");
    await runCli(["compare", base, base, "--history", history, "--format", "json", "--out-file", json]);
    const parsed = JSON.parse(await readFile(json, "utf8")) as Comparison;
    expect(parsed.counts).toEqual({ regressed: 0, improved: 0, unchanged: 0, inconclusive: 4 });
  });

  it("a history that got faster at a commit: the spread is the runs' since then, not the step's", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-compare-history-"));
    // 100 runs at 8 ms, then 100 at 5 ms; base at 5 ms, head 30% slower
    const past = historyOf(nginxHistory(200, (i) => (i < 100 ? 8 : 5)));
    const baseRun = results([cell("nginx", reps(15000, 5))]);
    const headRun = results([cell("nginx", reps(15000 / 1.3, 5 * 1.3))]);
    // across the step, 6.5 ms sits among the past runs: no verdict
    const whole = compareResults(baseRun, headRun, { history: historyFromData(past, "data.js") });
    expect(whole.counts.regressed).toBe(0);
    const history = path.join(dir, "data.js");
    await writeFile(history, serializeDataJs(past));
    const json = path.join(dir, "compare.json");
    const run = await runCli([
      "compare",
      await writeRun(dir, "base", baseRun),
      await writeRun(dir, "head", headRun),
      ...["--history", history, "--format", "json", "--out-file", json, "--fail-on-regression"],
    ]);
    const parsed = JSON.parse(await readFile(json, "utf8")) as Comparison;
    expect(parsed.counts.regressed).toBe(4);
    expect(run.code).toBe(1);
    expect(parsed.notes.join("\n")).toContain("each series from its last change point");
  });
});
