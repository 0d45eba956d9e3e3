import { describe, expect, it } from "vitest";
import {
  correctResponses,
  k6ExitMeaning,
  k6LogErrors,
  normaliseK6Summary,
  NumericMetrics,
  readK6Metrics,
  GRPC_OK_METRIC,
  LATENCY_METRIC,
} from "../../../../src/engines/k6/summary.js";
import { classifyRepetition } from "../../../../src/engines/classify.js";
import { UserError } from "../../../../src/util/errors.js";
import { fixtureJson } from "../../../support/engines/fixtures.js";

const ctx = (
  file: string,
  model: "constant-vus" | "constant-arrival-rate" | "fixed-count" = "constant-vus",
) => ({
  file,
  durationS: 2,
  model,
  acceptedStatus: [200],
});

async function normalise(name: string, model?: "constant-vus" | "constant-arrival-rate" | "fixed-count") {
  return normaliseK6Summary(await fixtureJson(`k6/${name}.json`), ctx(`${name}.json`, model));
}

describe("normaliseK6Summary on real k6 outputs", () => {
  it("clean: every request a checked 200, throughput from the measured window", async () => {
    const raw = (await fixtureJson("k6/clean.json")) as {
      metrics: Record<string, { values: Record<string, number> }>;
    };
    const m = await normalise("clean");
    const tail = raw.metrics.proxybench_ok_tail?.values.count ?? 0;
    const okWindow = raw.metrics.proxybench_status_200!.values.count! - tail;
    expect(m.requests).toBe(raw.metrics.proxybench_status_200!.values.count);
    expect(m.statusCodes).toEqual({ "200": m.requests });
    expect(m.errors).toBe(0);
    expect(m.non2xx).toBe(0);
    expect(m.checkFailures).toBe(0);
    expect(m.droppedIterations).toBe(0);
    expect(m.durationS).toBe(2);
    expect(m.rps).toBeCloseTo(okWindow / 2, 6);
    // setup()'s request is in http_reqs, not in the counted requests
    expect(m.requests).toBe(raw.metrics.http_reqs!.values.count! - 1);
    const latency = raw.metrics[LATENCY_METRIC]!.values;
    // ... nor in the latency: one sample per counted response
    expect(latency.count).toBe(m.requests);
    expect(m.latencyMs).toEqual({
      min: latency.min,
      mean: latency.avg,
      p50: latency.med,
      p90: latency["p(90)"],
      p95: latency["p(95)"],
      p99: latency["p(99)"],
      max: latency.max,
    });
    expect(m.latencyPercentilesMs["99.9"]).toBe(latency["p(99.9)"]);
    expect(m.latencyPercentilesMs["75"]).toBe(latency["p(75)"]);
    const { min, p50, p99, max } = m.latencyMs;
    expect(min).toBeLessThanOrEqual(p50);
    expect(p50).toBeLessThanOrEqual(p99);
    expect(p99).toBeLessThanOrEqual(max);
    expect(m.bytesReceived).toBe(raw.metrics.data_received!.values.count);
  });

  it("not-found: 404s are counted as non-2xx, nothing succeeds, no latency", async () => {
    const m = await normalise("not-found");
    expect(m.non2xx).toBeGreaterThan(0);
    expect(m.statusCodes).toEqual({ "404": m.non2xx });
    expect(m.requests).toBe(m.non2xx);
    expect(m.rps).toBe(0);
    expect(m.latencyMs.max).toBe(0);
    expect(m.latencyPercentilesMs).toEqual({});
  });

  it("check-failures: 200s that fail the body check are not throughput", async () => {
    const m = await normalise("check-failures");
    expect(m.checkFailures).toBeGreaterThan(0);
    expect(m.checkFailures).toBe(m.statusCodes["200"]);
    expect(m.non2xx).toBe(0);
    expect(m.rps).toBe(0);
  });

  it("refused: transport errors count as errors and leave no latency", async () => {
    const raw = (await fixtureJson("k6/refused.json")) as {
      metrics: Record<string, { values: Record<string, number> }>;
    };
    // k6 itself records the refused requests as ~0 ms samples of http_req_duration ...
    expect(raw.metrics.http_req_duration!.values.count).toBeGreaterThan(0);
    const m = await normalise("refused");
    // ... which proxybench does not read.
    expect(m.errors).toBeGreaterThan(0);
    expect(m.statusCodes).toEqual({ "0": m.errors });
    expect(m.requests).toBe(m.errors);
    expect(m.non2xx).toBe(0);
    expect(m.rps).toBe(0);
    expect(m.latencyMs).toEqual({ min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 });
  });

  it("refused-setup-abort: nothing measured", async () => {
    const m = await normalise("refused-setup-abort");
    expect(m.requests).toBe(0);
    expect(m.rps).toBe(0);
  });

  it("dropped: an arrival-rate run the load generator could not hold", async () => {
    const m = await normalise("dropped", "constant-arrival-rate");
    expect(m.droppedIterations).toBeGreaterThan(0);
    expect(m.non2xx).toBe(0);
    expect(m.rps).toBeGreaterThan(0);
  });

  it("json-lookup: five requests per iteration, all counted", async () => {
    const raw = (await fixtureJson("k6/json-lookup.json")) as {
      metrics: Record<string, { values: Record<string, number> }>;
    };
    const m = await normalise("json-lookup");
    expect(m.requests).toBe(raw.metrics.iterations!.values.count! * 5);
    expect(m.checkFailures).toBe(0);
    // the responses of iterations still in flight after the window are not throughput
    const tail = raw.metrics.proxybench_ok_tail!.values.count!;
    expect(tail).toBeGreaterThan(0);
    expect(m.rps).toBeCloseTo((m.requests - tail) / 2, 9);
  });

  it("fixed-count runs take k6's run duration", async () => {
    const raw = (await fixtureJson("k6/clean.json")) as { state: { testRunDurationMs: number } };
    const m = await normalise("clean", "fixed-count");
    expect(m.durationS).toBeCloseTo(raw.state.testRunDurationMs / 1000, 9);
  });
});

describe("status counters", () => {
  it("counts class counters (codes outside the known list) and skips empty counters", () => {
    const trend = {
      type: "trend",
      values: { min: 1, avg: 1, med: 1, "p(90)": 1, "p(95)": 1, "p(99)": 1, max: 1, count: 3 },
    };
    const counter = (count: number) => ({ type: "counter", values: { count, rate: count } });
    const m = normaliseK6Summary(
      {
        state: { testRunDurationMs: 2000 },
        metrics: {
          [LATENCY_METRIC]: trend,
          proxybench_status_200: counter(3),
          proxybench_status_5xx: counter(2),
          proxybench_status_1xx: counter(0),
          proxybench_status_0: counter(1),
          proxybench_ok_tail: counter(1),
        },
      },
      ctx("s.json"),
    );
    expect(m.statusCodes).toEqual({ "0": 1, "200": 3, "5xx": 2 });
    expect(m.requests).toBe(6);
    expect(m.non2xx).toBe(2);
    expect(m.errors).toBe(1);
    expect(m.rps).toBe(1); // 3 correct, 1 of them after the window, over 2 s
  });
});

describe("correctResponses", () => {
  const cases: {
    name: string;
    codes: Record<string, number>;
    failures: number;
    accepted: number[];
    expected: number;
  }[] = [
    { name: "all correct", codes: { "200": 10 }, failures: 0, accepted: [200], expected: 10 },
    { name: "body failures among them", codes: { "200": 10 }, failures: 4, accepted: [200], expected: 6 },
    {
      name: "non-2xx are never correct",
      codes: { "200": 10, "404": 5 },
      failures: 0,
      accepted: [200],
      expected: 10,
    },
    {
      name: "a 2xx that is not accepted is a check failure, not another one",
      codes: { "200": 10, "204": 3 },
      failures: 3,
      accepted: [200],
      expected: 10,
    },
    {
      name: "wrong 2xx and body failures",
      codes: { "200": 10, "204": 3 },
      failures: 5,
      accepted: [200],
      expected: 8,
    },
    {
      name: "several accepted",
      codes: { "200": 10, "204": 3, "0": 2 },
      failures: 1,
      accepted: [200, 204],
      expected: 12,
    },
    {
      name: "an accepted non-2xx is still not correct",
      codes: { "404": 7 },
      failures: 0,
      accepted: [404],
      expected: 0,
    },
    { name: "nothing", codes: {}, failures: 0, accepted: [200], expected: 0 },
  ];
  it.each(cases)("$name", ({ codes, failures, accepted, expected }) => {
    expect(correctResponses(codes, failures, accepted)).toBe(expected);
  });
});

describe("readK6Metrics", () => {
  it("reads the legacy --summary-export shape like the handleSummary shape of the same run", async () => {
    const legacy = readK6Metrics(await fixtureJson("k6/legacy-summary-export.json"), NumericMetrics, {
      file: "legacy.json",
    });
    const modern = readK6Metrics(await fixtureJson("k6/legacy-handle-summary.json"), NumericMetrics, {
      file: "modern.json",
    });
    expect(legacy.format).toBe("summary-export");
    expect(modern.format).toBe("handleSummary");
    expect(legacy.metrics[LATENCY_METRIC]).toEqual(modern.metrics[LATENCY_METRIC]);
    expect(legacy.metrics.http_req_failed).toEqual(modern.metrics.http_req_failed);
    expect(legacy.metrics.http_reqs).toEqual(modern.metrics.http_reqs);
    expect(legacy.metrics.vus).toEqual(modern.metrics.vus);
  });

  it("normalises a legacy export too", async () => {
    const m = normaliseK6Summary(await fixtureJson("k6/legacy-summary-export.json"), ctx("legacy.json"));
    expect(m.requests).toBeGreaterThan(0);
    expect(m.non2xx).toBe(0);
  });
});

describe("invalid summaries name the file and the field", () => {
  const cases: { name: string; json: unknown; message: RegExp }[] = [
    {
      name: "a metric without a type",
      json: { state: { testRunDurationMs: 1 }, metrics: { http_reqs: { values: { count: 1 } } } },
      message: /^s\.json: metrics\.http_reqs\.type: /,
    },
    {
      name: "no run duration",
      json: { state: {}, metrics: { http_reqs: { type: "counter", values: { count: 1 } } } },
      message: /^s\.json: state\.testRunDurationMs: /,
    },
    {
      name: "no latency submetric",
      json: {
        state: { testRunDurationMs: 1 },
        metrics: { http_reqs: { type: "counter", values: { count: 1 } } },
      },
      message: /^s\.json: metrics\.http_req_duration\{expected_response:true\}: missing/,
    },
    {
      name: "a trend without p(99)",
      json: {
        state: { testRunDurationMs: 1 },
        metrics: {
          [LATENCY_METRIC]: {
            type: "trend",
            values: { min: 1, avg: 1, med: 1, "p(90)": 1, "p(95)": 1, max: 1 },
          },
        },
      },
      message: /^s\.json: metrics\.http_req_duration\{expected_response:true\}\.p\(99\): missing/,
    },
    {
      name: "not a summary at all",
      json: { metrics: "nope" },
      message: /^s\.json: metrics: /,
    },
  ];
  it.each(cases)("$name", ({ json, message }) => {
    expect(() => normaliseK6Summary(json, ctx("s.json"))).toThrow(UserError);
    expect(() => normaliseK6Summary(json, ctx("s.json"))).toThrow(message);
  });
});

describe("k6ExitMeaning", () => {
  it.each([
    [0, undefined],
    [99, "k6 thresholds failed (exit 99)"],
    [104, "the k6 configuration is invalid (exit 104)"],
    [105, "k6 was aborted from outside (exit 105)"],
    [107, "the k6 script threw an exception (exit 107)"],
    [108, "the k6 script aborted the test (exit 108)"],
    [1, "k6 exited with code 1"],
    [null, "k6 was killed by a signal"],
  ])("%s", (code, meaning) => {
    expect(k6ExitMeaning(code)).toBe(meaning);
  });
});

describe("k6LogErrors", () => {
  // Real k6 1.8.1 log lines (a closed port with the fail-fast setup; an invalid load).
  const cases: { name: string; log: string; expected: string[] }[] = [
    {
      name: "setup() abort: the error line, not the warnings",
      log: [
        'time="2026-11-21T14:26:19Z" level=warning msg="Request Failed" error="Get \\"http://127.0.0.1:1/api/values\\": dial tcp 127.0.0.1:1: connect: connection refused"',
        'time="2026-11-21T14:26:19Z" level=error msg="test aborted: target http://127.0.0.1:1 is down: GET /api/values: dial: connection refused"',
      ].join("\n"),
      expected: [
        "test aborted: target http://127.0.0.1:1 is down: GET /api/values: dial: connection refused",
      ],
    },
    {
      name: "invalid configuration: escaped newlines and tabs on one line",
      log: 'time="2026-11-21T14:26:19Z" level=error msg="There were problems with the specified script configuration:\\n\\t- scenario passthrough has configuration errors: the iteration rate isn\'t specified"',
      expected: [
        "There were problems with the specified script configuration: - scenario passthrough has configuration errors: the iteration rate isn't specified",
      ],
    },
    { name: "no error line", log: 'time="x" level=warning msg="Request Failed"', expected: [] },
    { name: "empty", log: "", expected: [] },
  ];
  it.each(cases)("$name", ({ log, expected }) => {
    expect(k6LogErrors(log)).toEqual(expected);
  });
});

describe("normaliseK6Summary on real k6 gRPC outputs (scenarios/lib/proxybench-grpc.js)", () => {
  const grpc = async (name: string) =>
    normaliseK6Summary(await fixtureJson(`k6/${name}.json`), { ...ctx(`${name}.json`), protocol: "grpc" });

  it("grpc-clean: every call OK with the right reply; status counts keyed by gRPC status name", async () => {
    const raw = (await fixtureJson("k6/grpc-clean.json")) as {
      metrics: Record<string, { values: Record<string, number> }>;
    };
    const m = await grpc("grpc-clean");
    expect(m.requests).toBe(raw.metrics[GRPC_OK_METRIC]!.values.count);
    expect(m.statusCodes).toEqual({ OK: m.requests });
    expect(m.non2xx + m.errors + m.checkFailures).toBe(0);
    expect(m.rps * 2).toBeLessThanOrEqual(m.requests);
    expect(m.rps * 2).toBeGreaterThan(m.requests * 0.8);
    expect(m.latencyMs.p50).toBe(raw.metrics[GRPC_OK_METRIC]!.values.med);
    expect(m.latencyMs.min).toBeGreaterThan(0);
    expect(
      classifyRepetition({ ...m, raw: [], exitCode: 0, engineErrors: [] }, { loadgenCores: 1 }).reasons,
    ).toEqual([]);
  });

  it("grpc-wrong-reply: OK calls with another reply are check failures, and the cell invalid", async () => {
    const m = await grpc("grpc-wrong-reply");
    expect(m.statusCodes).toEqual({ OK: m.requests });
    // Replies are compared on a sample: each VU's first 8 calls, then one in 16.
    expect(m.checkFailures).toBeGreaterThanOrEqual(8);
    expect(m.checkFailures).toBeLessThan(m.requests);
    const c = classifyRepetition({ ...m, raw: [], exitCode: 0, engineErrors: [] }, { loadgenCores: 1 });
    expect(c.status).toBe("invalid");
    expect(c.reasons).toEqual([
      `${m.checkFailures} OK gRPC calls with a reply that failed the scenario's check`,
    ]);
  });

  it("grpc-unavailable: UNAVAILABLE calls are counted by name, not throughput, and make the cell invalid", async () => {
    const m = await grpc("grpc-unavailable");
    const unavailable = m.statusCodes.UNAVAILABLE ?? 0;
    expect(unavailable).toBeGreaterThan(0);
    expect(m.non2xx).toBe(unavailable);
    expect(m.requests).toBe(unavailable + (m.statusCodes.OK ?? 0));
    expect(m.rps * 2).toBeLessThanOrEqual(m.statusCodes.OK ?? 0);
    const c = classifyRepetition({ ...m, raw: [], exitCode: 0, engineErrors: [] }, { loadgenCores: 1 });
    expect(c.status).toBe("invalid");
    expect(c.reasons[0]).toBe(
      `${unavailable} gRPC calls not OK of ${m.requests} (UNAVAILABLE: ${unavailable})`,
    );
  });

  it("a gRPC summary without the OK submetric names it", async () => {
    const raw = (await fixtureJson("k6/clean.json")) as object;
    expect(() => normaliseK6Summary(raw, { ...ctx("clean.json"), protocol: "grpc" })).toThrow(
      `clean.json: metrics.${GRPC_OK_METRIC}: missing`,
    );
  });
});
