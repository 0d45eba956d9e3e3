import { z } from "zod";
import type { LatencyMs, Protocol } from "../../results/schema.js";
import { isGrpc } from "../../results/protocols.js";
import { checkedBySchema, issuePath, UserError } from "../../util/errors.js";
import { statusTotals } from "../measurement.js";
import type { EngineFigures } from "../types.js";

/**
 * k6 end-of-test summaries, in both shapes k6 writes:
 * - handleSummary(data): `metrics.<name> = {type, contains, values: {...}, thresholds?}`;
 * - `--summary-export` (legacy): the values flattened into the metric object, `value` instead of
 *   `rate` for rate metrics, thresholds as `{expr: true-when-failed}`.
 * `readK6Metrics` is the one reader of either shape (the engine's figures and `report
 * --k6-summary` both start from it): it returns `name -> values` with the handleSummary key
 * names, checked against the caller's schema, and its errors name the field as the file has it.
 */

export type K6SummaryFormat = "handleSummary" | "summary-export";

const HandleSummaryShape = z.object({
  state: z.object({ testRunDurationMs: z.number().nonnegative() }).loose().optional(),
  metrics: z.record(
    z.string(),
    z.object({
      type: z.enum(["counter", "gauge", "rate", "trend"]),
      contains: z.string().optional(),
      values: z.record(z.string(), z.unknown()),
      thresholds: z.record(z.string(), z.object({ ok: z.boolean() })).optional(),
    }),
  ),
});

const LegacyShape = z.object({
  metrics: z.record(
    z.string(),
    z.object({ thresholds: z.record(z.string(), z.boolean()).optional() }).catchall(z.unknown()),
  ),
});

/** Which shape a parsed summary has: handleSummary metrics carry `values`. */
function formatOf(json: unknown): K6SummaryFormat {
  const metrics = (json as { metrics?: unknown } | null)?.metrics;
  if (typeof metrics !== "object" || metrics === null) return "summary-export";
  const first = Object.values(metrics)[0] as unknown;
  return typeof first === "object" && first !== null && "values" in first
    ? "handleSummary"
    : "summary-export";
}

/**
 * Reads a k6 summary of either shape into `name -> values` (handleSummary key names: a legacy
 * rate metric's `value` is its `rate`) and checks them against `schema`. Errors name `file`
 * (with the shape when `nameFormat`) and the field where the file has it.
 */
export function readK6Metrics<T>(
  json: unknown,
  schema: z.ZodType<T>,
  options: { file: string; nameFormat?: boolean },
) {
  const format = formatOf(json);
  const where = options.nameFormat
    ? `${options.file} (k6 ${format === "handleSummary" ? "handleSummary" : "--summary-export"})`
    : options.file;
  const metrics: Record<string, Record<string, unknown>> = {};
  /** Legacy metrics whose `value` was read as `rate`. */
  const renamed = new Set<string>();
  let testRunDurationMs: number | undefined;
  if (format === "handleSummary") {
    const summary = checkedBySchema(HandleSummaryShape, json, where);
    testRunDurationMs = summary.state?.testRunDurationMs;
    for (const [name, m] of Object.entries(summary.metrics)) metrics[name] = m.values;
  } else {
    for (const [name, m] of Object.entries(checkedBySchema(LegacyShape, json, where).metrics)) {
      const values: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(m)) {
        if (key === "thresholds") continue;
        const isRate = key === "value" && !("min" in m);
        if (isRate) renamed.add(name);
        values[isRate ? "rate" : key] = value;
      }
      metrics[name] = values;
    }
  }
  const checked = schema.safeParse(metrics);
  if (!checked.success) {
    // issues are at [name, key, ...] of `metrics`: name them where the file has them
    const lines = checked.error.issues.map((issue) => {
      const [name, key, ...rest] = issue.path;
      const inFile =
        name === undefined
          ? []
          : key === undefined
            ? [name]
            : format === "handleSummary"
              ? [name, "values", key, ...rest]
              : [name, key === "rate" && renamed.has(String(name)) ? "value" : key, ...rest];
      return `${where}: ${issuePath(["metrics", ...inFile])}: ${issue.message}`;
    });
    throw new UserError(lines.join("\n"));
  }
  return {
    format,
    /** Present in handleSummary output only. */
    ...(testRunDurationMs === undefined ? {} : { testRunDurationMs }),
    metrics: checked.data,
  };
}

/** Every metric's values, all numbers: what the engine reads from proxybench's own summaries. */
export const NumericMetrics = z.record(z.string(), z.record(z.string(), z.number()));

/** The latency submetric proxybench reads: successful responses only (see ANCHORS.md). */
export const LATENCY_METRIC = "http_req_duration{expected_response:true}";
/** The gRPC library's (scenarios/lib/proxybench-grpc.js): calls that ended with status OK. */
export const GRPC_OK_METRIC = "grpc_req_duration{status:0}";

/** gRPC status names by code (the keys of a gRPC cell's status counts; "0" is no answer). */
export const GRPC_STATUS_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;
const GRPC_STATUS_METRIC = /^proxybench_grpc_status_(\d+|other)$/;

const STATUS_METRIC = /^proxybench_status_(\d+|[1-5]xx)$/;
/** k6's own count of responses with one accepted status (the library names it by a threshold). */
const ACCEPTED_METRIC = /^http_reqs\{expected_response:true,status:(\d+)\}$/;

export interface K6SummaryContext {
  /** Names the summary in errors. */
  file: string;
  /** The measured window the script was given (PROXYBENCH_CONFIG.durationS). */
  durationS: number;
  /** fixed-count runs have no fixed window: their duration is k6's test run duration. */
  model: "constant-vus" | "constant-arrival-rate" | "fixed-count";
  /** The scenario's accepted statuses (check.status). */
  acceptedStatus: readonly number[];
  /** grpc: the summary of the gRPC library, its status counts keyed by gRPC status name. */
  protocol?: Protocol;
}

/**
 * Pure: responses that passed every check, from the status counts. Each response is counted
 * once by status (accepted statuses by k6's http_reqs submetrics, the others by the library's
 * counters); a 2xx that fails the check is also a check failure, and every 2xx whose status is
 * not accepted fails the check. So the correct responses are those with an
 * accepted 2xx status, minus the check failures that are not explained by a wrong 2xx status.
 */
export function correctResponses(
  statusCodes: Record<string, number>,
  checkFailures: number,
  acceptedStatus: readonly number[],
): number {
  let accepted = 0;
  let wrong2xx = 0;
  for (const [code, n] of Object.entries(statusCodes)) {
    if (!code.startsWith("2")) continue;
    if (acceptedStatus.includes(Number(code))) accepted += n;
    else wrong2xx += n;
  }
  return Math.max(0, accepted - Math.max(0, checkFailures - wrong2xx));
}

function count(metrics: Record<string, Record<string, number>>, name: string): number {
  return metrics[name]?.count ?? 0;
}

/**
 * Pure: a summary written by scenarios/lib/proxybench.js -> figures. Throughput counts the
 * responses that passed every check and completed inside the measured window (all of them for
 * fixed-count runs); latency is that
 * of responses with an expected status; status codes, check failures and transport errors come
 * from the library's counters.
 */
export function normaliseK6Summary(json: unknown, ctx: K6SummaryContext): EngineFigures {
  const { metrics, testRunDurationMs } = readK6Metrics(json, NumericMetrics, { file: ctx.file });
  const grpc = isGrpc(ctx.protocol);
  const latencyMetric = grpc ? GRPC_OK_METRIC : LATENCY_METRIC;
  const latency = metrics[latencyMetric];
  if (!latency) {
    throw new UserError(
      `${ctx.file}: metrics.${latencyMetric}: missing (the script must declare a threshold on it so that k6 reports it)`,
    );
  }
  const statusCodes = grpc ? grpcStatusCodes(metrics) : httpStatusCodes(metrics);
  const samples = latency.count ?? (latency.max && latency.max > 0 ? 1 : 0);
  /** The value of one of the trend keys k6 writes (`avg`, `med`, `p(90)`...). */
  const trend = (key: string): number => {
    const value = latency[key];
    if (value === undefined) {
      throw new UserError(
        `${ctx.file}: metrics.${latencyMetric}.${key}: missing (summaryTrendStats must include it)`,
      );
    }
    return samples > 0 ? value : 0;
  };
  const latencyMs: LatencyMs = {
    min: trend("min"),
    mean: trend("avg"),
    p50: trend("med"),
    p90: trend("p(90)"),
    p95: trend("p(95)"),
    p99: trend("p(99)"),
    max: trend("max"),
  };
  const latencyPercentilesMs: Record<string, number> = {};
  for (const [key, value] of Object.entries(latency)) {
    const p = /^p\(([\d.]+)\)$/.exec(key)?.[1];
    if (p !== undefined && samples > 0) latencyPercentilesMs[p] = value;
  }
  const durationS =
    ctx.model === "fixed-count" && testRunDurationMs !== undefined ? testRunDurationMs / 1000 : ctx.durationS;
  const checkFailures = count(metrics, "proxybench_check_failures");
  const correct = grpc
    ? Math.max(0, (statusCodes.OK ?? 0) - checkFailures)
    : correctResponses(statusCodes, checkFailures, ctx.acceptedStatus);
  const ok =
    ctx.model === "fixed-count" ? correct : Math.max(0, correct - count(metrics, "proxybench_ok_tail"));
  const bytes = metrics.data_received?.count;
  return {
    durationS,
    rps: durationS > 0 ? ok / durationS : 0,
    ...statusTotals(statusCodes),
    checkFailures,
    statusCodes,
    droppedIterations: count(metrics, "dropped_iterations"),
    ...(bytes === undefined ? {} : { bytesReceived: bytes }),
    latencyMs,
    latencyPercentilesMs,
  };
}

/** Responses per HTTP status: the library's counters and k6's accepted-status submetrics. */
function httpStatusCodes(metrics: Record<string, Record<string, number>>): Record<string, number> {
  const statusCodes: Record<string, number> = {};
  for (const [name, values] of Object.entries(metrics)) {
    const code = (STATUS_METRIC.exec(name) ?? ACCEPTED_METRIC.exec(name))?.[1];
    if (code !== undefined) tally(statusCodes, code, values.count ?? 0);
  }
  return statusCodes;
}

/**
 * Calls per gRPC status name ("OK", "UNAVAILABLE"...; "0": no answer): OK from k6's
 * grpc_req_duration{status:0} count, the others from the gRPC library's counters.
 */
function grpcStatusCodes(metrics: Record<string, Record<string, number>>): Record<string, number> {
  const statusCodes: Record<string, number> = {};
  tally(statusCodes, "OK", count(metrics, GRPC_OK_METRIC));
  tally(statusCodes, "0", count(metrics, "proxybench_status_0"));
  for (const [name, values] of Object.entries(metrics)) {
    const code = GRPC_STATUS_METRIC.exec(name)?.[1];
    if (code === undefined) continue;
    const key = code === "other" ? "OTHER" : (GRPC_STATUS_NAMES[Number(code)] ?? code);
    tally(statusCodes, key, values.count ?? 0);
  }
  return statusCodes;
}

/** Adds n responses under a status key (none: no key). */
function tally(statusCodes: Record<string, number>, key: string, n: number): void {
  if (n > 0) statusCodes[key] = (statusCodes[key] ?? 0) + n;
}

/** What the k6 exit codes other than 0 that proxybench names mean (ANCHORS.md). */
const K6_EXIT_MEANINGS: Record<number, string> = {
  99: "k6 thresholds failed",
  100: "k6 setup() timed out",
  104: "the k6 configuration is invalid",
  105: "k6 was aborted from outside",
  107: "the k6 script threw an exception",
  108: "the k6 script aborted the test",
};

/** What a k6 exit code means (ANCHORS.md); undefined for success. */
export function k6ExitMeaning(code: number | null): string | undefined {
  if (code === 0) return undefined;
  if (code === null) return "k6 was killed by a signal";
  const meaning = K6_EXIT_MEANINGS[code];
  return meaning === undefined ? `k6 exited with code ${code}` : `${meaning} (exit ${code})`;
}

/**
 * Pure: the messages of k6's error-level log lines (`level=error msg="..."`), unquoted, one
 * line each, for engine error reasons. Empty when there is none.
 */
export function k6LogErrors(log: string): string[] {
  const errors: string[] = [];
  for (const line of log.split("\n")) {
    if (!line.includes("level=error")) continue;
    const quoted = /\bmsg=("(?:[^"\\]|\\.)*")/.exec(line)?.[1];
    let message: string;
    try {
      message = quoted === undefined ? line : (JSON.parse(quoted) as string);
    } catch {
      message = quoted ?? line;
    }
    errors.push(message.replace(/\s*\n\s*/g, " ").trim());
  }
  return errors;
}
