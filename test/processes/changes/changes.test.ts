import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findChanges } from "../../../src/changes/find.js";
import type { SeriesChanges } from "../../../src/publish/change-points.js";
import { serializeDataJs } from "../../../src/publish/datajs.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { commitId, historyOf, wobble } from "../../support/changes/history.js";
import { runCli } from "../../support/commands/cli.js";

// The real Apache Otava (.tools/venv, installed by scripts/setup.sh --for-tests) on built histories.

const steps = (n: number, at: number, before: number, after: number) =>
  Array.from({ length: n }, (_, i) => wobble(i < at ? before : after, 0.01, i));

/** 60 runs: nginx's p99 up 10% at run 30, its req/s down 8% at run 40, haproxy's p99 flat. */
const history = historyOf([
  { suite: "passthrough latency", bench: "nginx p99", values: steps(60, 30, 2, 2.2) },
  { suite: "passthrough latency", bench: "haproxy p99", values: steps(60, 60, 3, 3) },
  {
    suite: "passthrough throughput",
    bench: "nginx req/s",
    biggerIsBetter: true,
    values: steps(60, 40, 9000, 8280),
  },
]);

async function written(text: string): Promise<string> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), "pb-changes-")), "data.js");
  await writeFile(file, text);
  return file;
}

describe("findChanges (Apache Otava)", () => {
  it("finds each step at its commit, its size and direction; none on a flat series", async () => {
    const found = await findChanges(history);
    expect(found.map((s) => [s.bench, s.points, s.changes.map((c) => c.index)])).toEqual([
      ["nginx p99", 60, [30]],
      ["haproxy p99", 60, []],
      ["nginx req/s", 60, [40]],
    ]);
    const [p99, , rps] = found;
    expect(p99?.changes[0]).toMatchObject({
      before: { id: commitId(29) },
      after: { id: commitId(30) },
      regression: true,
    });
    expect(p99?.changes[0]?.changePct).toBeCloseTo(10, 0);
    expect(p99?.changes[0]?.pValue).toBeLessThan(0.001);
    expect(rps?.changes[0]).toMatchObject({ after: { id: commitId(40) }, regression: true });
    expect(rps?.changes[0]?.changePct).toBeCloseTo(-8, 0);
  });

  it("--min-change drops a change smaller than it, --max-p one less sure than it", async () => {
    const found = await findChanges(history, { maxPValue: 0.001, minChangePct: 9 });
    expect(found.map((s) => s.changes.length)).toEqual([1, 0, 0]);
    const sure = await findChanges(history, { maxPValue: 1e-300, minChangePct: 3 });
    expect(sure.map((s) => s.changes.length)).toEqual([0, 0, 0]);
  });
});

describe("proxybench changes DATA_JS", () => {
  it("markdown by default; JSON is the SeriesChanges[]; --fail-on-regression exits 1 on a regression only", async () => {
    const file = await written(serializeDataJs(history));
    const md = await runCli(["changes", file]);
    expect(md.code).toBe(0);
    expect(md.out).toMatch(/^## proxybench changes: 2 regressions, 0 improvements in 3 series/);
    expect(md.out).toContain(`| passthrough latency    | nginx p99   | [${commitId(29).slice(0, 12)}]`);
    const out = path.join(path.dirname(file), "changes.json");
    const json = await runCli([
      "changes",
      file,
      "--format",
      "json",
      "--out-file",
      out,
      "--fail-on-regression",
    ]);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(await readFile(out, "utf8")) as SeriesChanges[];
    expect(parsed).toEqual(await findChanges(history));

    const faster = await written(
      serializeDataJs(historyOf([{ suite: "s latency", bench: "nginx p50", values: steps(40, 20, 2, 1.6) }])),
    );
    const improved = await runCli(["changes", faster, "--fail-on-regression"]);
    expect(improved.out).toMatch(/^## proxybench changes: 0 regressions, 1 improvement in 1 series/);
    expect(improved.code).toBe(0);
  });

  it("a short history says so and finds nothing; an empty one has no series", async () => {
    const short = await written(
      serializeDataJs(historyOf([{ suite: "s latency", bench: "nginx p50", values: [1, 2, 9] }])),
    );
    const run = await runCli(["changes", short, "--fail-on-regression"]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(
      "1 series too short to tell a change from noise (fewer than 6 points, not analysed)",
    );
    const empty = await written(serializeDataJs({ lastUpdate: 0, repoUrl: "", entries: {} }));
    expect((await runCli(["changes", empty])).out).toContain("The history holds no series.");
  });

  it("a corrupt data.js is refused (exit 2), naming the file and the field, and left as it was", async () => {
    const text =
      'window.BENCHMARK_DATA = {"lastUpdate": 1, "repoUrl": "", "entries": {"s": [{"date": "x"}]}}';
    const file = await written(text);
    const run = await runCli(["changes", file, "--fail-on-regression"]);
    expect(run.code).toBe(2);
    expect(run.out).toContain(`${file}: entries.s[0].date: Invalid input: expected number`);
    expect(run.out).toContain(`${file}: not a valid benchmark history`);
    expect(await readFile(file, "utf8")).toBe(text);
    const missing = await runCli(["changes", path.join(path.dirname(file), "none.js")]);
    expect(missing.code).toBe(2);
    expect(missing.out).toMatch(/none\.js: cannot read it/);
    expect((await runCli(["changes", file, "--min-change", "-1"])).out).toContain(
      "--min-change: expected a percentage >= 0, got '-1'",
    );
  });
});

describe("scripts/otava-changes.py", () => {
  const script = path.join(PROJECT_ROOT, "scripts", "otava-changes.py");
  const python = path.join(PROJECT_ROOT, ".tools", "venv", "bin", "python");
  const run = (input: string, flags: string[] = []) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(python, ["-I", ...flags, script], (error, _stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stderr }),
      );
      child.stdin?.end(input);
    });

  it("refuses input that is not series of finite numbers (exit 2), saying what it expected", async () => {
    const notJson = await run("[1");
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^stdin: not JSON/);
    const bad = await run(
      JSON.stringify({ maxPValue: 0.001, minMagnitude: 0, series: [{ values: [1, "x"] }] }),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("a list of finite numbers");
  });

  it("exits 3 with a message where Otava is not installed (a Python without site-packages)", async () => {
    const bare = await run("{}", ["-S"]);
    expect(bare.code).toBe(3);
    expect(bare.stderr).toContain("Apache Otava is not installed");
  });
});
