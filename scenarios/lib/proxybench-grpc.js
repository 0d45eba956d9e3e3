// Shared k6 logic for proxybench's gRPC scenarios (protocol: grpc), the gRPC twin of
// proxybench.js: the calls, the checks, the load model and the summary all come from the
// scenario manifest, which proxybench passes as JSON in PROXYBENCH_CONFIG
// (src/engines/k6/config.ts). Each request of the manifest is one unary call: `path` is
// `/package.Service/Method`, `body` the request message in JSON; `check.bodyEquals` is the reply
// message in JSON. The service's definition comes from the scenario's descriptor set
// (`protoset`, loaded once at start), else from the server's reflection through the proxy under
// test as each VU connects (a round trip per VU, which can time out on a busy machine).
//
// What is counted (read by src/engines/k6/summary.ts). A correct call adds no sample of its own:
// calls with status OK are counted by k6's own grpc_req_duration, through its submetric
// grpc_req_duration{status:0} (named by a no-op threshold), which is also the latency.
//   proxybench_grpc_status_<code>  calls that ended with any other gRPC status (1..16)
//   proxybench_status_0            calls with no answer at all (the connection failed)
//   proxybench_check_failures      OK calls whose reply differed from check.bodyEquals
//   proxybench_ok_tail             OK calls that completed after the measured window
// Replies are compared on a sample: each VU's first BODY_CHECK_FIRST, then one in
// BODY_CHECK_EVERY. A proxy that answers wrongly fails the sample: the cell is invalid either way.
import grpc from "k6/net/grpc";
import exec from "k6/execution";
import { Counter } from "k6/metrics";
import { executor } from "./executor.js";
import { tailCounter } from "./window.js";

if (!__ENV.PROXYBENCH_CONFIG) {
  throw new Error(
    "PROXYBENCH_CONFIG is not set: run this script through `proxybench run`, which passes the scenario as JSON",
  );
}

/** @type {{ baseUrl: string, protocol: string, protoset?: string, scenario: string, requests: {method: string, path: string, name: string, headers: Record<string,string>, body?: string}[], check: {bodyEquals?: string}, load: object, durationS: number, summaryFile: string, failFast: boolean }} */
export const config = JSON.parse(__ENV.PROXYBENCH_CONFIG);

/** host:port of the target (the scheme and any path of baseUrl dropped). */
const target = config.baseUrl.replace(/^[a-z0-9+.-]+:\/\//i, "").replace(/\/.*$/, "");

/** k6's count and latency of the calls that ended with status OK. */
export const OK_METRIC = "grpc_req_duration{status:0}";

const statusCounters = [];
for (let code = 1; code <= 16; code++) statusCounters[code] = new Counter(`proxybench_grpc_status_${code}`);
const otherStatus = new Counter("proxybench_grpc_status_other");
const transportErrors = new Counter("proxybench_status_0");
const checkFailures = new Counter("proxybench_check_failures");
const okTail = new Counter("proxybench_ok_tail");
/** A correct reply after the measured window is counted apart (left out of throughput). */
const countTail = tailCounter(config.load.model, config.durationS, okTail);

const BODY_CHECK_FIRST = 8;
const BODY_CHECK_EVERY = 16;

/** The k6 `options`: one named scenario, the trend stats proxybench reports, no-op thresholds. */
export function makeOptions() {
  return {
    scenarios: { [config.scenario]: executor(config.load, config.durationS) },
    summaryTrendStats: ["min", "avg", "med", "p(75)", "p(90)", "p(95)", "p(99)", "p(99.9)", "max", "count"],
    // A submetric is in the summary only when a threshold names it; this one never fails.
    thresholds: { [OK_METRIC]: ["max>=0"] },
  };
}

/** The reply every call must get, as compact JSON (undefined: not checked). */
const expectedReply =
  config.check.bodyEquals === undefined ? undefined : JSON.stringify(JSON.parse(config.check.bodyEquals));

// Built once per VU: the method and the request message of each call.
const prepared = config.requests.map((r) => ({
  request: r,
  method: r.path.replace(/^\/+/, ""),
  message: r.body === undefined ? {} : JSON.parse(r.body),
  params: Object.keys(r.headers).length > 0 ? { metadata: r.headers } : undefined,
}));

const client = new grpc.Client();
if (config.protoset) client.loadProtoset(config.protoset);
let connected = false;

function connect() {
  // grpcs: TLS, the certificate verified against the roots in SSL_CERT_FILE (the run's CA).
  client.connect(target, {
    plaintext: config.protocol !== "grpcs",
    reflect: !config.protoset,
    timeout: "5s",
  });
  connected = true;
}

/** setup(): fails fast when the target does not answer at all (a wrong status is measured instead). */
export function checkTarget() {
  if (!config.failFast) return;
  try {
    connect();
  } catch (err) {
    exec.test.abort(`target ${target} is down: ${err}`);
  }
}

// Per VU: whether a failure was already logged (one line per VU is enough to diagnose).
let failureLogged = false;
let calls = 0;

function logOnce(text) {
  if (failureLogged) return;
  failureLogged = true;
  console.warn(text);
}

/** The numeric gRPC status of a response (k6 shows the status as its name, e.g. "Unavailable"). */
function statusCode(res) {
  const code = Number(res.status);
  if (Number.isInteger(code)) return code;
  return res.error && Number.isInteger(res.error.code) ? res.error.code : -1;
}

function countReply(p, res, sampled) {
  if (res.status !== grpc.StatusOK) {
    (statusCounters[statusCode(res)] || otherStatus).add(1);
    logOnce(
      `call failed: ${p.method}: status ${res.status}${res.error ? ` ${JSON.stringify(res.error)}` : ""}`,
    );
    return;
  }
  if (sampled && JSON.stringify(res.message) !== expectedReply) {
    checkFailures.add(1);
    logOnce(`check failed: ${p.method}: reply ${JSON.stringify(res.message)} (expected ${expectedReply})`);
    return;
  }
  countTail();
}

/** One iteration: every call of the scenario, in order, on this VU's connection. */
export function iteration() {
  for (const p of prepared) {
    calls += 1;
    let res;
    try {
      if (!connected) connect();
      res = client.invoke(p.method, p.message, p.params);
    } catch (err) {
      connected = false;
      transportErrors.add(1);
      logOnce(`no answer: ${p.method}: ${err}`);
      continue;
    }
    const sampled =
      expectedReply !== undefined && (calls <= BODY_CHECK_FIRST || calls % BODY_CHECK_EVERY === 0);
    countReply(p, res, sampled);
  }
}

/** handleSummary(): the summary JSON goes to a local file only (no remote import, nothing sent). */
export function summary(data) {
  return { [config.summaryFile]: JSON.stringify(data, null, 2) };
}
