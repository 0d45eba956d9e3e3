import { describe, expect, it } from "vitest";
import { buildSuites } from "../../../src/publish/entries.js";
import { renderHtmlReport } from "../../../src/report/html.js";
import { reportJson } from "../../../src/report/json.js";
import { renderMarkdownReport } from "../../../src/report/markdown.js";
import { buildReport } from "../../../src/report/model.js";
import { cell, costly, results } from "../../support/report/build.js";

const reps = (n: number) => Array.from({ length: n }, () => ({ rps: 1000, p50: 1 }));

describe("the proxy's cost in the report", () => {
  const run = results([
    cell("direct", reps(3)),
    costly(cell("nginx", reps(3)), [40, 41.5, 39]),
    costly(cell("haproxy", reps(3)), [30, 31, 29], 20.25),
  ]);

  it("adds CPU/request, requests/CPU-second and peak memory rows, with % against the baseline", () => {
    const md = renderMarkdownReport(run, { baselineProxy: "nginx" });
    expect(md).toMatch(/\| Proxy CPU\/request \(µs\) +\| +40\.00 \|.*\| +30\.00 \| +~ -25\.00% \|/);
    expect(md).toMatch(/\| Requests\/CPU-second +\| +25,000 \|/);
    expect(md).toMatch(/\| Proxy peak memory \(MiB\) +\| +12\.50 \|.*\| +20\.25 \| +~ \+62\.00% \|/);
    // direct has no proxy process: n/a, never a number
    expect(md).toMatch(/\| Proxy CPU\/request \(µs\) +\| +40\.00 \| +n\/a \|/);
    expect(md).toContain("Proxy CPU/request: CPU time (user + system) of all the proxy's processes");
  });

  it("shows no cost rows for results that never measured it (older files)", () => {
    const old = results([cell("direct", reps(3)), cell("nginx", reps(3))]);
    expect(renderMarkdownReport(old)).not.toContain("Proxy CPU/request");
    const comparison = reportJson(buildReport(old)).groups[0]!.tables.comparison;
    expect(comparison.rows.map((r) => r.metric)).toEqual(["rps", "mean", "p50", "p99", "max", "errors"]);
  });

  it("has the figures in the JSON report and the HTML page", () => {
    const group = reportJson(buildReport(run)).groups[0]!;
    const nginx = group.columns.find((c) => c.proxy === "nginx")!;
    expect(nginx.values?.cost).toEqual({ cpuPerRequestUs: 40, requestsPerCpuS: 25_000, peakMemoryMiB: 12.5 });
    const row = group.tables.comparison.rows.find((r) => r.metric === "cpuPerRequest")!;
    expect(row.cells.map((c) => c.value)).toEqual([undefined, 40, 30]);
    const html = renderHtmlReport(run, { chartJs: "" });
    expect(html).toContain('<th scope="row">Proxy CPU/request (µs)</th><td>n/a</td><td>40.00</td>');
    expect(html).toContain("Proxy peak memory (MiB)");
  });

  it("publishes a smaller-is-better proxy cost suite for the cells that measured it", () => {
    const suites = buildSuites(run, {
      commit: { author: {}, committer: {}, id: "abc", message: "", timestamp: "2026-11-21T13:00:00Z" },
      date: 0,
    });
    const suite = suites.get("small proxy cost")!;
    expect(suite.tool).toBe("customSmallerIsBetter");
    expect(suite.benches.map((b) => [b.name, b.value, b.unit])).toEqual([
      ["nginx CPU/request", 40, "µs"],
      ["nginx peak memory", 12.5, "MiB"],
      ["haproxy CPU/request", 30, "µs"],
      ["haproxy peak memory", 20.25, "MiB"],
    ]);
    const old = results([cell("nginx", reps(3))]);
    expect([...buildSuites(old, { commit: suite.commit, date: 0 }).keys()]).toEqual([
      "small throughput",
      "small latency",
    ]);
  });
});
