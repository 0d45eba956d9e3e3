import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LATENCY_METRIC as EXPECTED_DURATION } from "../../../src/engines/k6/summary.js";
import {
  buildK6Report,
  k6Report,
  parseK6Summary,
  parseK6SummaryArg,
  readK6Summary,
} from "../../../src/report/k6-summary.js";
import { renderReportModelMarkdown } from "../../../src/report/markdown.js";
import { UserError } from "../../../src/util/errors.js";

const DIR = "test/fixtures/report/k6";
const fixture = (name: string) => path.join(DIR, name);
const load = async (name: string): Promise<unknown> => JSON.parse(await readFile(fixture(name), "utf8"));

describe("parseK6Summary on real k6 v1.8.1 outputs", () => {
  it("reads handleSummary and --summary-export of the same run to the same figures", async () => {
    const handle = await readK6Summary(fixture("ok-handle-summary.json"));
    const legacy = await readK6Summary(fixture("ok-summary-export.json"));
    expect(handle.format).toBe("handleSummary");
    expect(legacy.format).toBe("summary-export");
    expect({ ...legacy, format: "x" }).toEqual({ ...handle, format: "x" });
    expect(handle.failed).toBe(0);
    expect(handle.latency?.["p(99)"]).toBeGreaterThan(0);
  });

  it("takes latency from expected responses and req/s from successful requests when some failed", async () => {
    const data = (await load("partial-handle-summary.json")) as {
      metrics: Record<string, { values: Record<string, number> }>;
    };
    const figures = parseK6Summary("partial", data);
    const expected = data.metrics[EXPECTED_DURATION]?.values;
    expect(figures.failed).toBe(data.metrics.http_req_failed?.values.passes);
    expect(figures.failed).toBeGreaterThan(0);
    expect(figures.latency?.avg).toBe(expected?.avg);
    const model = buildK6Report([{ name: "partial", file: "f", figures }]);
    const values = model.groups[0]?.columns[0]?.values;
    const reqs = data.metrics.http_reqs?.values ?? {};
    const successfulRate = ((reqs.count ?? 0) - figures.failed) / ((reqs.count ?? 0) / (reqs.rate ?? 1));
    expect(values?.rps).toBeCloseTo(successfulRate, 6);
    expect(values?.rps).toBeLessThan(reqs.rate ?? 0);
    expect(values?.errors).toBe(figures.failed);
  });

  it("marks a run where every connection was refused invalid (its ~0 ms samples are not latency)", async () => {
    for (const file of ["refused-handle-summary.json", "refused-summary-export.json"]) {
      const model = await k6Report([`down=${fixture(file)}`]);
      const column = model.groups[0]?.columns[0];
      expect(column?.status).toBe("invalid");
      expect(column?.values).toBeUndefined();
      expect(column?.reasons.join()).toMatch(/no successful request/);
    }
  });

  it("marks latency invalid when requests failed and there is no expected_response submetric", async () => {
    const data = (await load("partial-summary-export.json")) as { metrics: Record<string, unknown> };
    delete data.metrics[EXPECTED_DURATION];
    const figures = parseK6Summary("edited", data);
    expect(figures.latency).toBeUndefined();
    expect(figures.latencyProblem).toMatch(/failed and the summary has no/);
  });

  it("falls back to http_req_duration when nothing failed and the submetric is missing", async () => {
    const data = (await load("ok-summary-export.json")) as { metrics: Record<string, { avg?: number }> };
    const avg = data.metrics.http_req_duration?.avg;
    delete data.metrics[EXPECTED_DURATION];
    expect(parseK6Summary("edited", data).latency?.avg).toBe(avg);
  });

  /** The tables of a full summary beside one with k6's default trend stats only. */
  const withDefaultStats = async () =>
    renderReportModelMarkdown(
      await k6Report([
        `a=${fixture("ok-handle-summary.json")}`,
        `b=${fixture("default-stats-handle-summary.json")}`,
      ]),
    );

  it("shows n/a for p99 when the summary has only k6's default trend stats", async () => {
    const md = await withDefaultStats();
    const p99 = md.split("\n").find((l) => l.startsWith("| p99 latency"));
    expect(p99).toMatch(/\|\s+n\/a \|\s+\|$/);
  });

  it("one run each: every change marked ~, and the note says no change has an interval", async () => {
    const md = await withDefaultStats();
    const p50 = md.split("\n").find((l) => l.startsWith("| p50 latency"));
    expect(p50).toMatch(/\|\s+~ [+-]\d+\.\d\d% \|$/);
    expect(md).toContain(
      "No change here has an interval: no repetitions of these figures are paired by round",
    );
  });

  it("names the file and the field of a bad summary", () => {
    const err = (() => {
      try {
        parseK6Summary("bad.json", {
          metrics: { http_reqs: { type: "counter", values: { count: "x", rate: 1 } } },
        });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      /bad\.json \(k6 handleSummary\): metrics\.http_reqs\.values\.count/,
    );
    expect((err as Error).message).toMatch(/metrics\.http_req_failed/);
    expect(() => parseK6Summary("old.json", { metrics: { http_reqs: { count: 1, rate: 1 } } })).toThrow(
      /old\.json \(k6 --summary-export\): metrics\.http_req_failed/,
    );
  });

  it("reports a file that is missing or not JSON", async () => {
    await expect(readK6Summary(fixture("nope.json"))).rejects.toThrow(/nope\.json: cannot read/);
    await expect(readK6Summary(fixture("script.k6.js"))).rejects.toThrow(/script\.k6\.js: not valid JSON/);
  });
});

// Real k6 v1.8.1 outputs kept by the engines' tests (test/fixtures/k6/README.md says how each was made).
describe("parseK6Summary on the engines' k6 fixtures", () => {
  it("marks failed checks invalid: 200s with wrong bodies are no measurement", async () => {
    const model = await k6Report([
      `clean=${engines("clean.json")}`,
      `checks=${engines("check-failures.json")}`,
    ]);
    const column = model.groups[0]?.columns[1];
    expect(column?.status).toBe("invalid");
    expect(column?.values).toBeUndefined();
    // proxybench's k6 library counts failed checks in a counter rather than check() samples
    const failures = (await metric("check-failures.json", "proxybench_check_failures")).count;
    const requests = (await metric("check-failures.json", "http_reqs")).count;
    expect(failures).toBeGreaterThan(0);
    expect(column?.reasons).toEqual([`${failures} of ${requests} checks failed: responses were not correct`]);
    expect(model.groups[0]?.columns[0]?.status).toBe("ok");
  });

  it("marks dropped iterations loadgen-bound", async () => {
    const model = await k6Report([`dropped=${engines("dropped.json")}`]);
    const column = model.groups[0]?.columns[0];
    expect(column?.status).toBe("loadgen-bound");
    const dropped = (await metric("dropped.json", "dropped_iterations")).count;
    expect(dropped).toBeGreaterThan(0);
    expect(column?.reasons.join()).toContain(`k6 dropped ${dropped} iterations`);
    // it is the baseline and not ok: no changes in the group
    expect(model.groups[0]?.baselineProblem).toMatch(/loadgen-bound/);
  });

  it("reads both formats of one run to the same figures", async () => {
    const handle = await readK6Summary(engines("legacy-handle-summary.json"));
    const legacy = await readK6Summary(engines("legacy-summary-export.json"));
    expect({ ...legacy, format: "x" }).toEqual({ ...handle, format: "x" });
    expect(handle.format).toBe("handleSummary");
    expect(legacy.format).toBe("summary-export");
    expect(handle.requests).toBe((await metric("legacy-handle-summary.json", "http_reqs")).count);
    expect(handle.latency?.["p(99)"]).toBeGreaterThan(0);
  });
});

/** One of the engines' real k6 outputs (test/fixtures/k6, made by its make-fixtures.sh). */
function engines(name: string): string {
  return path.join("test/fixtures/k6", name);
}

/** A metric's values in one of the engines' k6 fixtures (handleSummary format). */
async function metric(file: string, name: string): Promise<Record<string, number>> {
  const data = JSON.parse(await readFile(engines(file), "utf8")) as {
    metrics: Record<string, { values: Record<string, number> }>;
  };
  const m = data.metrics[name];
  if (!m) throw new Error(`${file} has no metric ${name}`);
  return m.values;
}

describe("--k6-summary arguments", () => {
  it.each([
    ["nginx=a.json", { name: "nginx", file: "a.json" }],
    ["a=b=c.json", { name: "a", file: "b=c.json" }],
  ])("%s", (arg, expected) => {
    expect(parseK6SummaryArg(arg)).toEqual(expected);
  });

  it.each(["nginx", "=a.json", "nginx="])("rejects %s", (arg) => {
    expect(() => parseK6SummaryArg(arg)).toThrow(/--k6-summary: expected NAME=FILE/);
  });

  it("refuses a name given twice and uses the first summary as baseline", async () => {
    const f = fixture("ok-handle-summary.json");
    await expect(k6Report([`a=${f}`, `a=${f}`])).rejects.toThrow(/given twice/);
    const model = await k6Report([`z=${f}`, `a=${fixture("partial-handle-summary.json")}`], {
      scenario: "s",
    });
    expect(model.groups[0]?.baseline).toBe("z");
    expect(model.groups[0]?.scenario).toBe("s");
  });
});
