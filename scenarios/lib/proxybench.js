// Shared k6 logic for every proxybench scenario: the requests, the checks, the load model and the
// summary all come from the scenario manifest, which proxybench passes as JSON in
// PROXYBENCH_CONFIG (see src/engines/k6/config.ts). scenario.yml stays the single source of truth.
//
// Counters written here (read by src/engines/k6/summary.ts):
//   proxybench_status_<code>   responses per status code (0: transport error, no response)
//   proxybench_check_failures  2xx responses that failed the scenario's check (status list,
//                              content type, body)
//   proxybench_ok              responses that passed every check
//   proxybench_ok_window       of those, the ones that completed inside the measured window
//                              (the tail of in-flight iterations after `duration` is excluded)
import http from "k6/http";
import exec from "k6/execution";
import { check } from "k6";
import { Counter } from "k6/metrics";

if (!__ENV.PROXYBENCH_CONFIG) {
  throw new Error(
    "PROXYBENCH_CONFIG is not set: run this script through `proxybench run`, which passes the scenario as JSON",
  );
}

/** @type {{ baseUrl: string, scenario: string, requests: {method: string, path: string, name: string, headers: Record<string,string>, body?: string}[], check: {status: number[], contentType?: string, bodyEquals?: string, bodyContains?: string}, load: object, durationS: number, summaryFile: string, failFast: boolean }} */
export const config = JSON.parse(__ENV.PROXYBENCH_CONFIG);

const baseUrl = config.baseUrl.replace(/\/+$/, "");
const expected = new Set(config.check.status);
const windowMs = config.durationS * 1000;

// One counter per status code: k6 metrics must be declared in the init context, and a metric
// with no sample does not appear in the summary, so only the codes seen are reported.
const statusCounters = {};
for (let code = 100; code <= 599; code++) statusCounters[code] = new Counter(`proxybench_status_${code}`);
const transportErrors = new Counter("proxybench_status_0");
const checkFailures = new Counter("proxybench_check_failures");
const ok = new Counter("proxybench_ok");
const okWindow = new Counter("proxybench_ok_window");

// expected_response (and so the latency submetric) follows the scenario's accepted statuses.
http.setResponseCallback(http.expectedStatuses(...config.check.status));

/** The k6 `options`: one named scenario, the trend stats proxybench reports, no-op thresholds. */
export function makeOptions() {
  return {
    scenarios: { [config.scenario]: executor(config.load, config.durationS) },
    summaryTrendStats: ["min", "avg", "med", "p(75)", "p(90)", "p(95)", "p(99)", "p(99.9)", "max", "count"],
    // A submetric is in the summary only when a threshold names it. These never fail: regressions
    // are judged by proxybench's reports, not by k6 thresholds.
    thresholds: {
      "http_req_duration{expected_response:true}": ["max>=0"],
    },
    discardResponseBodies: !needsBody(config.check),
    noConnectionReuse: false,
    userAgent: "proxybench",
  };
}

function needsBody(c) {
  return c.bodyEquals !== undefined || c.bodyContains !== undefined;
}

function executor(load, durationS) {
  const duration = `${durationS}s`;
  switch (load.model) {
    case "constant-arrival-rate":
      return {
        executor: "constant-arrival-rate",
        rate: load.rate,
        timeUnit: "1s",
        duration,
        preAllocatedVUs: load.preAllocatedVUs,
        maxVUs: load.maxVUs,
        gracefulStop: "2s",
      };
    case "fixed-count":
      return {
        executor: "shared-iterations",
        vus: load.vus,
        iterations: load.iterations,
        maxDuration: duration,
        gracefulStop: "2s",
      };
    default:
      return { executor: "constant-vus", vus: load.vus, duration, gracefulStop: "2s" };
  }
}

/** setup(): fails fast when the target does not answer at all (a wrong status is measured instead). */
export function checkTarget() {
  if (!config.failFast) return;
  const first = config.requests[0];
  const res = http.request(first.method, baseUrl + first.path, first.body ?? null, {
    headers: first.headers,
    tags: { name: "setup" },
    timeout: "5s",
  });
  if (res.status === 0) {
    exec.test.abort(
      `target ${baseUrl} is down: ${first.method} ${first.path}: ${res.error || "no response"}`,
    );
  }
}

function countResponse(res) {
  if (res.status === 0) {
    transportErrors.add(1);
    return;
  }
  const counter = statusCounters[res.status];
  if (counter) counter.add(1);
  if (res.status < 200 || res.status > 299) return;
  const c = config.check;
  const passed = check(res, {
    status: (r) => expected.has(r.status),
    "content type": (r) =>
      c.contentType === undefined || (r.headers["Content-Type"] || "").includes(c.contentType),
    body: (r) =>
      (c.bodyEquals === undefined || r.body === c.bodyEquals) &&
      (c.bodyContains === undefined || (typeof r.body === "string" && r.body.includes(c.bodyContains))),
  });
  if (!passed) {
    checkFailures.add(1);
    return;
  }
  ok.add(1);
  if (Date.now() - exec.scenario.startTime <= windowMs) okWindow.add(1);
}

/** One iteration: every expanded request of the scenario, in order. */
export function iteration() {
  for (const r of config.requests) {
    const res = http.request(r.method, baseUrl + r.path, r.body ?? null, {
      headers: r.headers,
      tags: { name: r.name },
    });
    countResponse(res);
  }
}

/** handleSummary(): the summary JSON goes to a local file only (no remote import, nothing sent). */
export function summary(data) {
  return { [config.summaryFile]: JSON.stringify(data, null, 2) };
}
