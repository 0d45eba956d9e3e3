// Shared k6 logic for every proxybench scenario: the requests, the checks, the load model and the
// summary all come from the scenario manifest, which proxybench passes as JSON in
// PROXYBENCH_CONFIG (see src/engines/k6/config.ts). scenario.yml stays the single source of truth.
//
// What is counted (read by src/engines/k6/summary.ts). A correct response adds no sample of its
// own: every sample costs load-generator CPU, so responses with an accepted status are counted
// by k6's own http_reqs, through one submetric per accepted status
// (http_reqs{expected_response:true,status:<code>}, named by a no-op threshold).
//   proxybench_status_<code>   responses with any other status (0: transport error, no response;
//                              4xx etc.: a code outside the known list)
//   proxybench_check_failures  2xx responses that failed the scenario's check (status list,
//                              content type, body)
//   proxybench_ok_tail         correct responses that completed after the measured window (the
//                              in-flight iterations after `duration`), left out of throughput
// Correct responses = responses with an accepted status - the check failures among them.
// Content type and body are checked on a sample: each VU's first BODY_CHECK_FIRST responses,
// then one in BODY_CHECK_EVERY; the others are read with their body discarded (cheaper). A
// proxy that answers wrongly fails the sample: the cell is invalid either way.
import http from "k6/http";
import exec from "k6/execution";
import { Counter } from "k6/metrics";
import { executor } from "./executor.js";
import { tailCounter } from "./window.js";

if (!__ENV.PROXYBENCH_CONFIG) {
  throw new Error(
    "PROXYBENCH_CONFIG is not set: run this script through `proxybench run`, which passes the scenario as JSON",
  );
}

/** @type {{ baseUrl: string, scenario: string, requests: {method: string, path: string, name: string, headers: Record<string,string>, body?: string}[], check: {status: number[], contentType?: string, bodyEquals?: string, bodyContains?: string}, load: object, durationS: number, summaryFile: string, failFast: boolean }} */
export const config = JSON.parse(__ENV.PROXYBENCH_CONFIG);

const baseUrl = config.baseUrl.replace(/\/+$/, "");
const expected = new Set(config.check.status);

// One counter per status code: k6 metrics must be declared in the init context (which runs for
// every VU, so the list is kept to the codes in use: the registered ones and the common
// unofficial ones), and a metric with no sample does not appear in the summary, so only the
// codes seen are reported. Any other code is counted per class: proxybench_status_4xx...
const KNOWN_CODES = [
  [100, 103],
  [200, 208],
  [226, 226],
  [300, 308],
  [400, 418],
  [421, 426],
  [428, 429],
  [431, 431],
  [444, 444],
  [451, 451],
  [494, 497],
  [499, 499],
  [500, 508],
  [510, 511],
  [520, 527],
  [529, 530],
];
const statusCounters = {};
for (const [from, to] of KNOWN_CODES) {
  for (let code = from; code <= to; code++) statusCounters[code] = new Counter(`proxybench_status_${code}`);
}
const classCounters = [1, 2, 3, 4, 5].map((c) => new Counter(`proxybench_status_${c}xx`));
const transportErrors = new Counter("proxybench_status_0");
const checkFailures = new Counter("proxybench_check_failures");
const okTail = new Counter("proxybench_ok_tail");

// expected_response (and so the latency submetric) follows the scenario's accepted statuses.
http.setResponseCallback(http.expectedStatuses(...config.check.status));

const BODY_CHECK_FIRST = 8;
const BODY_CHECK_EVERY = 16;

/** The submetric of http_reqs that counts one accepted status. */
export function acceptedMetric(code) {
  return `http_reqs{expected_response:true,status:${code}}`;
}

/** The k6 `options`: one named scenario, the trend stats proxybench reports, no-op thresholds. */
export function makeOptions() {
  return {
    scenarios: { [config.scenario]: executor(config.load, config.durationS) },
    summaryTrendStats: ["min", "avg", "med", "p(75)", "p(90)", "p(95)", "p(99)", "p(99.9)", "max", "count"],
    // A submetric is in the summary only when a threshold names it. These never fail: regressions
    // are judged by proxybench's reports, not by k6 thresholds.
    thresholds: {
      "http_req_duration{expected_response:true}": ["max>=0"],
      ...Object.fromEntries(config.check.status.map((code) => [acceptedMetric(code), ["count>=0"]])),
    },
    // Only the tags the summary reads (the accepted-status submetrics and the latency of expected
    // responses): every tag is built and carried on each of a request's dozen samples.
    systemTags: ["status", "expected_response"],
    // Bodies are read only for the sampled responses (responseType "text" on those requests).
    discardResponseBodies: true,
    noConnectionReuse: false,
    userAgent: "proxybench",
  };
}

function needsBody(c) {
  return c.bodyEquals !== undefined || c.bodyContains !== undefined;
}

function needsCheck(c) {
  return needsBody(c) || c.contentType !== undefined;
}

/** setup(): fails fast when the target does not answer at all (a wrong status is measured instead). */
export function checkTarget() {
  if (!config.failFast) return;
  const first = config.requests[0];
  const res = http.request(first.method, baseUrl + first.path, first.body ?? null, {
    headers: first.headers,
    tags: { name: "setup" },
    // Not an expected response whatever its status: its latency stays out of the measurement.
    responseCallback: http.expectedStatuses({ min: 600, max: 600 }),
    timeout: "5s",
  });
  if (res.status === 0) {
    exec.test.abort(
      `target ${baseUrl} is down: ${first.method} ${first.path}: ${res.error || "no response"}`,
    );
  }
}

/** What is wrong with a 2xx response ("" when it is correct). */
function problem(res) {
  const c = config.check;
  if (!expected.has(res.status)) return `status ${res.status}`;
  if (c.contentType !== undefined && !(res.headers["Content-Type"] || "").includes(c.contentType)) {
    return `content type ${res.headers["Content-Type"] || "(none)"}`;
  }
  if (c.bodyEquals !== undefined && res.body !== c.bodyEquals) return "body differs";
  if (c.bodyContains !== undefined && !(typeof res.body === "string" && res.body.includes(c.bodyContains))) {
    return "body lacks the expected text";
  }
  return "";
}

// Per VU: whether a check failure was already logged (one line per VU is enough to diagnose).
let failureLogged = false;

/** Counts a response whose status is not an accepted one, or a sampled one (checked in full). */
function countResponse(r, res, status, sampled) {
  if (!expected.has(status)) {
    if (status === 0) {
      transportErrors.add(1);
      return;
    }
    const counter = statusCounters[status] || classCounters[Math.floor(status / 100) - 1];
    if (counter) counter.add(1);
    if (status < 200 || status > 299) return;
  }
  // No k6 check(): its `checks` sample on every response costs 10-20% of the load generator's
  // throughput, and proxybench_check_failures already counts what matters.
  const wrong = sampled || !expected.has(status) ? problem(res) : "";
  if (wrong !== "") {
    checkFailures.add(1);
    if (!failureLogged) {
      failureLogged = true;
      console.warn(`check failed: ${r.method} ${r.path}: ${wrong}`);
    }
    return;
  }
  countTail();
}

/** A correct response after the measured window is counted apart (left out of throughput). */
const countTail = tailCounter(config.load.model, config.durationS, okTail);

// Built once per VU: the URL and the request parameters of each request. Every argument given to
// http.request costs time on each request (k6 converts it from JavaScript, and an undefined
// params argument costs as much as a real one), so each request is sent with only the arguments
// it needs: no body and no params for a plain GET.
const prepared = config.requests.map((r) => {
  const params = {};
  if (Object.keys(r.headers).length > 0) params.headers = r.headers;
  if (r.name !== r.path) params.tags = { name: r.name };
  return {
    request: r,
    method: r.method,
    url: baseUrl + r.path,
    body: r.body ?? null,
    params: Object.keys(params).length > 0 ? params : undefined,
    // The sampled requests read their body as text.
    sampledParams: needsBody(config.check) ? { ...params, responseType: "text" } : params,
  };
});
const checking = needsCheck(config.check);
let responses = 0;

/** One request with only the arguments it needs. */
function send(p, params) {
  if (params !== undefined) return http.request(p.method, p.url, p.body, params);
  if (p.body !== null) return http.request(p.method, p.url, p.body);
  return http.request(p.method, p.url);
}

/** One iteration: every expanded request of the scenario, in order. */
export function iteration() {
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i];
    responses += 1;
    if (checking && (responses <= BODY_CHECK_FIRST || responses % BODY_CHECK_EVERY === 0)) {
      const res = send(p, p.sampledParams);
      countResponse(p.request, res, res.status, true);
      continue;
    }
    const res = send(p, p.params);
    const status = res.status;
    // The common case: an accepted status, not sampled. Anything else is counted in full.
    if (expected.has(status)) countTail();
    else countResponse(p.request, res, status, false);
  }
}

/** handleSummary(): the summary JSON goes to a local file only (no remote import, nothing sent). */
export function summary(data) {
  return { [config.summaryFile]: JSON.stringify(data, null, 2) };
}
