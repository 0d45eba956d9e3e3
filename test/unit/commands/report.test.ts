import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { register, reportSettings } from "../../../src/commands/report.js";
import type { ReportJson } from "../../../src/report/json.js";

/** Runs `proxybench report ARGS` through the command's own parser. */
async function reportCli(args: string[]): Promise<void> {
  const program = new Command("proxybench").exitOverride();
  register(program);
  await program.parseAsync(["report", ...args], { from: "user" });
}

const SAMPLE = "test/fixtures/report/sample";
const K6 = "test/fixtures/report/k6";

describe("reportSettings", () => {
  it("reads a results directory with defaults", () => {
    expect(reportSettings("dir", {})).toEqual({
      source: { kind: "results", dirs: ["dir"] },
      format: "markdown",
    });
  });

  it("reads several results directories (the shards of one run)", () => {
    expect(reportSettings(["a", "b"], {}).source).toEqual({ kind: "results", dirs: ["a", "b"] });
  });

  it("reads --k6-summary with a scenario", () => {
    expect(reportSettings(undefined, { k6Summary: ["a=x.json"], scenario: "s", format: "json" })).toEqual({
      source: { kind: "k6", summaries: ["a=x.json"], scenario: "s" },
      format: "json",
    });
  });

  it.each([
    ["dir", { format: "pdf" }, /--format: expected one of markdown, html, json, got 'pdf'/],
    ["dir", { k6Summary: ["a=b"] }, /either RESULTS_DIR or --k6-summary, not both/],
    [undefined, {}, /give a RESULTS_DIR or at least one --k6-summary/],
    ["dir", { scenario: "s" }, /--scenario only applies to --k6-summary/],
    [undefined, { k6Summary: ["a=b"], baselineProxy: "a" }, /--baseline-proxy does not apply/],
  ])("rejects %j %j", (dir, options, message) => {
    expect(() => reportSettings(dir, options)).toThrow(message);
  });
});

describe("proxybench report (CLI)", () => {
  it("writes markdown, json and html for a results directory", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-report-"));
    await reportCli([SAMPLE, "--out", path.join(dir, "r.md"), "--baseline-proxy", "nginx"]);
    const md = await readFile(path.join(dir, "r.md"), "utf8");
    expect(md).toContain("Baseline: **nginx**.");
    await reportCli([SAMPLE, "--format", "json", "--out", path.join(dir, "r.json")]);
    const json = JSON.parse(await readFile(path.join(dir, "r.json"), "utf8")) as ReportJson;
    expect(json.groups[0]?.baseline).toBe("direct");
    expect(json.groups[0]?.tables.comparison.rows.map((r) => r.metric)).toEqual([
      "rps",
      "mean",
      "p50",
      "p99",
      "max",
      "errors",
    ]);
    await reportCli([SAMPLE, "--format", "html", "--out", path.join(dir, "sub", "r.html")]);
    expect(await readFile(path.join(dir, "sub", "r.html"), "utf8")).toMatch(/^<!DOCTYPE html>/);
  });

  it("--spread writes each value with its lowest and highest across the repetitions", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-report-"));
    await reportCli([SAMPLE, "--spread", "--out", path.join(dir, "r.md")]);
    const md = await readFile(path.join(dir, "r.md"), "utf8");
    expect(md).toMatch(/\| p50 latency \(ms\) +\| +\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\) \|/);
    await reportCli([SAMPLE, "--spread", "--format", "html", "--out", path.join(dir, "r.html")]);
    expect(await readFile(path.join(dir, "r.html"), "utf8")).toMatch(
      /<td>\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\)<\/td>/,
    );
  });

  it("writes the tables of raw k6 summaries", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-report-"));
    const out = path.join(dir, "k6.md");
    await reportCli([
      "--k6-summary",
      `before=${K6}/ok-summary-export.json`,
      "--k6-summary",
      `after=${K6}/partial-handle-summary.json`,
      "--scenario",
      "small",
      "--out",
      out,
    ]);
    const md = await readFile(out, "utf8");
    expect(md).toContain("### small");
    expect(md).toMatch(/\| metric +\| +before \| +after \|/);
  });

  it("names the file of a bad results directory", async () => {
    await expect(reportCli(["test/fixtures/report/none"])).rejects.toThrow(
      /none\/results\.json: cannot read results/,
    );
  });

  it("a --baseline-proxy the run does not hold is an error naming it and the run's proxies", async () => {
    await expect(reportCli([SAMPLE, "--baseline-proxy", "nope"])).rejects.toThrow(
      "--baseline-proxy: 'nope' is not a proxy of this run (its proxies: direct, nginx, haproxy, <img src=x onerror=alert(1)>)",
    );
  });
});
