import { describe, expect, it } from "vitest";
import { renderHtmlReport } from "../../../src/report/html.js";
import { renderMarkdownReport } from "../../../src/report/markdown.js";
import { buildReport, displayReasons } from "../../../src/report/model.js";
import { reportJson } from "../../../src/report/json.js";
import { cell, results } from "../../support/report/build.js";
import { tableAfter } from "../../support/report/markdown.js";

describe("renderMarkdownReport", () => {
  const base = results([
    cell("nginx", [
      { rps: 15000, p50: 5 },
      { rps: 15300, p50: 5.2 },
      { rps: 14900, p50: 4.8 },
    ]),
    cell("direct", [
      { rps: 20000, p50: 4 },
      { rps: 20500, p50: 4.1 },
      { rps: 19000, p50: 3.9 },
    ]),
    cell("haproxy", [{ rps: 31337, p50: 0.777, non2xx: 20000 }], {
      status: "invalid",
      reasons: ["20000 non-2xx responses (502)"],
    }),
  ]);

  it("puts direct first as the baseline and computes signed % of the medians", () => {
    const md = renderMarkdownReport(base);
    const rows = tableAfter(md, "### small");
    expect(rows[0]).toEqual(["metric", "direct", "nginx", "", "haproxy", ""]);
    const rps = rows.find((r) => r[0] === "Requests/sec");
    // medians: direct 20000, nginx 15000 -> -25.00%
    // three repetitions give no interval: each change is marked within noise, and a note says why
    expect(rps).toEqual(["Requests/sec", "20,000", "15,000", "~ -25.00%", "invalid", ""]);
    const p50 = rows.find((r) => r[0] === "p50 latency (ms)");
    expect(p50).toEqual(["p50 latency (ms)", "4.00", "5.00", "~ +25.00%", "invalid", ""]);
    expect(md).toContain("Values are medians over 3 repetitions.");
  });

  it("shows an invalid cell's status and reasons, never its numbers", () => {
    const md = renderMarkdownReport(base);
    expect(md).not.toMatch(/31,337|31337|0\.78|0\.777/);
    expect(md).toContain("**haproxy** is invalid: 20000 non-2xx responses (502)");
    const latency = tableAfter(md, "| Proxy");
    expect(latency.find((r) => r[0] === "haproxy")?.slice(1)).toEqual(Array(7).fill("invalid"));
  });

  it("writes the Apollo layout: value<br>(+delta) against the baseline", () => {
    const latency = tableAfter(renderMarkdownReport(base), "| Proxy");
    expect(latency[0]).toEqual([
      "Proxy",
      "Min (ms)",
      "Mean (ms)",
      "p50 (ms)",
      "p90 (ms)",
      "p95 (ms)",
      "p99 (ms)",
      "Max (ms)",
    ]);
    expect(latency[2]?.[0]).toBe("direct");
    expect(latency[2]?.[3]).toBe("4.00");
    expect(latency[3]?.[3]).toBe("5.00<br>(~ +1.00)");
  });

  it("gives no % at all when the baseline is not ok, and says why", () => {
    const md = renderMarkdownReport(base, { baselineProxy: "haproxy" });
    const rows = tableAfter(md, "### small");
    expect(rows[0]).toEqual(["metric", "haproxy", "nginx", "direct"]);
    expect(md).not.toMatch(/[+-]\d+\.\d\d%/);
    expect(md).not.toContain("<br>(");
    expect(md).toContain("No changes against a baseline: baseline haproxy is invalid");
  });

  it("gives no % when the requested baseline did not run, without picking another", () => {
    const md = renderMarkdownReport(base, { baselineProxy: "envoy" });
    expect(md).not.toMatch(/[+-]\d+\.\d\d%/);
    expect(md).toContain("baseline envoy did not run in this scenario");
  });

  it("escapes a crafted baseline name in the note on why there are no changes, markdown and HTML", () => {
    const evil = "<img src=x onerror=alert(1)> [link](http://x) @someone";
    const md = renderMarkdownReport(base, { baselineProxy: evil });
    expect(md).toContain("No changes against a baseline: baseline ");
    expect(md).not.toContain("<img");
    expect(md).not.toContain("](http://x)");
    expect(md).not.toContain("@someone");
    const html = renderHtmlReport(base, { baselineProxy: evil, chartJs: "" });
    expect(html).toContain("No changes against a baseline: baseline ");
    expect(html).not.toContain("<img src=x");
  });

  it("takes the first proxy as baseline when direct did not run", () => {
    const md = renderMarkdownReport(
      results([cell("nginx", [{ rps: 100, p50: 1 }]), cell("caddy", [{ rps: 50, p50: 2 }])]),
    );
    expect(tableAfter(md, "### small")[2]).toEqual(["Requests/sec", "100", "50.00", "~ -50.00%"]);
    expect(md).toContain("Baseline: **nginx**.");
  });

  it("escapes a crafted proxy name everywhere and keeps every row's cell count", () => {
    const evil = "<img src=x onerror=alert(1)> | x";
    const md = renderMarkdownReport(
      results([cell("direct", [{ rps: 100, p50: 1 }]), cell(evil, [{ rps: 90, p50: 1.1 }])], {
        skipped: [{ proxy: evil, reason: "[link](http://x) @someone" }],
      }),
    );
    expect(md).not.toContain("<img");
    expect(md).not.toMatch(/(^|[^\\])\| x/m);
    expect(md).not.toContain("@someone");
    const rows = tableAfter(md, "### small");
    for (const row of rows) expect(row).toHaveLength(rows[0]?.length ?? 0);
    const latency = tableAfter(md, "| Proxy");
    for (const row of latency) expect(row).toHaveLength(8);
  });

  it("has a header with the environment, versions, commit, layout and skipped proxies", () => {
    const md = renderMarkdownReport(
      results([cell("direct", [{ rps: 100, p50: 1 }])], {
        environment: {
          os: "linux",
          kernel: "6.1.0-test",
          arch: "x64",
          cpuModel: "Some CPU @ 3GHz",
          cores: 2,
          loadAverage: [0.1, 0.2, 0.3],
          node: "v20",
          proxies: { nginx: "1.22.1" },
          git: { commit: "0123456789abcdef0123", branch: "main" },
        },
        skipped: [{ proxy: "envoy", reason: "image-only proxy in a native run" }],
      }),
    );
    expect(md).toContain("- **CPU**: Some CPU @ 3GHz, 2 cores");
    expect(md).toContain("kernel 6.1.0-test");
    expect(md).toContain("- **Proxies**: nginx 1.22.1");
    expect(md).toContain("- **Commit**: 0123456789ab on main");
    expect(md).toContain("- **CPU layout**: load generator 0, proxy 1, upstream 1");
    expect(md).toContain("- **envoy**: image-only proxy in a native run");
  });

  it("shows each status that is not ok, with its reasons", () => {
    for (const status of ["failed", "invalid", "noisy", "skipped"] as const) {
      const md = renderMarkdownReport(
        results([
          cell("direct", [{ rps: 100, p50: 1 }]),
          cell("x", [{ rps: 4242, p50: 42.42, status }], { status, reasons: [`why ${status}`] }),
        ]),
      );
      expect(md).toContain(`**x** is ${status}: why ${status}`);
      expect(md).not.toMatch(/4,242|42\.42/);
    }
  });

  it("shows a loadgen-bound column's figures as bounds, so the baseline keeps its place", () => {
    const md = renderMarkdownReport(
      results([
        cell("direct", [{ rps: 4242, p50: 42.42, status: "loadgen-bound" }], {
          status: "loadgen-bound",
          reasons: ["the load generator used 1.00 of its 1 core (>= 90%)"],
        }),
        cell("nginx", [{ rps: 2121, p50: 50 }]),
      ]),
    );
    expect(md).toContain(">= 4,242");
    expect(md).toContain("<= 42.42");
    expect(md).toContain("-50.00%"); // nginx against the bound: still a change to read
    expect(md).toMatch(/\*\*direct\*\*: the load generator was the limit, so the figures are bounds/);
    expect(md).not.toContain("&gt;= 4,242");
    expect(md).not.toMatch(/No changes against a baseline/);
  });

  it("a skipped proxy has a column saying skipped in every row of every scenario", () => {
    const md = renderMarkdownReport(
      results(
        [
          cell("direct", [{ rps: 100, p50: 1 }], { scenario: "a" }),
          cell("nginx", [{ rps: 90, p50: 1.1 }], { scenario: "a" }),
          cell("direct", [{ rps: 300, p50: 1 }], { scenario: "b" }),
        ],
        { skipped: [{ proxy: "envoy", reason: "image only: run it with --runtime docker" }] },
      ),
    );
    for (const scenario of ["### a", "### b"]) {
      const rows = tableAfter(md, scenario);
      const at = rows[0]!.indexOf("envoy");
      expect(at).toBeGreaterThan(0);
      for (const row of rows.slice(2)) expect(row[at]).toBe("skipped");
    }
    const model = buildReport(
      results([cell("direct", [{ rps: 100, p50: 1 }])], {
        skipped: [{ proxy: "envoy", reason: "image only" }],
      }),
    );
    expect(model.groups[0]?.baseline).toBe("direct");
    expect(model.groups[0]?.columns.map((c) => `${c.proxy}:${c.status}`)).toEqual([
      "direct:ok",
      "envoy:skipped",
    ]);
  });

  it("groups cells by scenario and load level", () => {
    const md = renderMarkdownReport(
      results([
        cell("direct", [{ rps: 100, p50: 1 }], { scenario: "a", load: "10vus" }),
        cell("direct", [{ rps: 200, p50: 1 }], { scenario: "a", load: "100vus" }),
        cell("direct", [{ rps: 300, p50: 1 }], { scenario: "b" }),
      ]),
    );
    expect(md).toContain("### a · 10vus (k6)");
    expect(md).toContain("### a · 100vus (k6)");
    expect(md).toContain("### b · default (k6)");
  });
});

describe("displayReasons", () => {
  it.each([
    [[], []],
    [
      ["a", "a", "b"],
      ["a", "b"],
    ],
    [
      ["1", "2", "3", "4", "5"],
      ["1", "2", "3", "and 2 more"],
    ],
  ])("%j -> %j", (reasons, shown) => {
    expect(displayReasons(reasons)).toEqual(shown);
  });
});

describe("report json", () => {
  it("has the computed tables, with statuses instead of values for cells not ok", () => {
    const model = buildReport(
      results([
        cell("direct", [{ rps: 100, p50: 1 }]),
        cell("bad", [{ rps: 5, p50: 9 }], { status: "failed", reasons: ["exit 1"] }),
      ]),
    );
    const json = reportJson(model);
    const table = json.groups[0]?.tables.comparison;
    expect(table?.rows[0]?.cells).toEqual([{ value: 100, range: [100, 100] }, { status: "failed" }]);
    expect(json.groups[0]?.columns[1]?.values).toBeUndefined();
  });
});
