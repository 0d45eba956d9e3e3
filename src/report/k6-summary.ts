import { z } from "zod";
import { LATENCY_METRIC, readK6Metrics, type K6SummaryFormat } from "../engines/k6/summary.js";
import { UserError } from "../util/errors.js";
import { readJsonFile } from "../util/files.js";
import { withoutUndefined } from "../util/objects.js";
import { chooseBaseline, orderColumns, type ReportColumn, type ReportModel } from "./model.js";

/**
 * Raw k6 output as report columns, for people with their own k6 scripts. Reads both formats
 * (handleSummary and --summary-export) with the engine's reader (`readK6Metrics`).
 * Latency comes from `http_req_duration{expected_response:true}` (a refused connection adds a
 * ~0 ms sample to http_req_duration); plain http_req_duration is used only when no request
 * failed, otherwise the column is invalid. Requests per second count successful requests only.
 * Failed checks (wrong bodies behind a 200) make the column invalid; dropped iterations of an
 * open model make it loadgen-bound (k6 could not keep the arrival rate).
 */

const Trend = z.object({
  avg: z.number().nonnegative(),
  min: z.number().nonnegative(),
  med: z.number().nonnegative(),
  max: z.number().nonnegative(),
  "p(90)": z.number().nonnegative().optional(),
  "p(95)": z.number().nonnegative().optional(),
  "p(99)": z.number().nonnegative().optional(),
});
type Trend = z.infer<typeof Trend>;

const Counter = z.object({ count: z.number().nonnegative(), rate: z.number().nonnegative() });
const Rate = z.object({
  rate: z.number().min(0).max(1),
  passes: z.number().int(),
  fails: z.number().int(),
});

/** The counter proxybench's own k6 library keeps instead of check() samples (cheaper per request). */
const CHECK_FAILURES = "proxybench_check_failures";

/** The metrics a report reads (handleSummary key names; a legacy rate's `value` is its `rate`). */
const ReportMetrics = z
  .object({
    http_reqs: Counter,
    http_req_failed: Rate,
    http_req_duration: Trend,
    [LATENCY_METRIC]: Trend.optional(),
    checks: Rate.optional(),
    [CHECK_FAILURES]: Counter.optional(),
    dropped_iterations: Counter.optional(),
  })
  .loose();

/** What a report needs from one k6 summary, whichever its format. */
export interface K6Figures {
  format: K6SummaryFormat;
  requests: number;
  failed: number;
  durationS: number;
  /** Latency of expected (successful) responses, or of all when none failed; absent when unusable. */
  latency?: Trend;
  /** Why the latency could not be used. */
  latencyProblem?: string;
  /** Failed and total checks, when the script has checks. */
  checks?: { failed: number; total: number };
  /** Iterations an open model could not start. */
  droppedIterations: number;
}

/** Validates a parsed k6 summary and extracts the figures; errors name the file and the field. */
export function parseK6Summary(file: string, data: unknown): K6Figures {
  const {
    format,
    testRunDurationMs,
    metrics: m,
  } = readK6Metrics(data, ReportMetrics, { file, nameFormat: true });
  const requests = m.http_reqs.count;
  const failed = m.http_req_failed.passes;
  const expected = m[LATENCY_METRIC];
  const failures = m[CHECK_FAILURES]?.count;
  // proxybench's failed-check counter: one check per response
  const checks =
    m.checks ??
    (failures === undefined ? undefined : { passes: Math.max(0, requests - failures), fails: failures });
  const dropped = m.dropped_iterations?.count ?? 0;
  const rate = m.http_reqs.rate;
  const durationS = rate > 0 ? requests / rate : (testRunDurationMs ?? 0) / 1000;
  const figures: K6Figures = { format, requests, failed, durationS, droppedIterations: dropped };
  // a rate metric counts true values as passes: for checks, passes are checks that passed
  if (checks !== undefined) figures.checks = { failed: checks.fails, total: checks.passes + checks.fails };
  if (expected !== undefined && requests - failed > 0) figures.latency = expected;
  else if (failed === 0 && requests > 0) figures.latency = m.http_req_duration;
  else if (requests - failed <= 0)
    figures.latencyProblem = `no successful request (${failed} of ${requests} failed)`;
  else {
    figures.latencyProblem = `${failed} of ${requests} requests failed and the summary has no ${LATENCY_METRIC}: latency would include failed requests`;
  }
  return figures;
}

export async function readK6Summary(file: string): Promise<K6Figures> {
  return parseK6Summary(file, await readJsonFile(file, `${file}: cannot read k6 summary`));
}

/** One report column from one summary: invalid (with the reason) when its latency is unusable. */
function k6Column(name: string, figures: K6Figures): ReportColumn {
  const column: ReportColumn = { proxy: name, status: "ok", reasons: [], repetitions: 1 };
  if (figures.latency === undefined) {
    column.status = "invalid";
    column.reasons.push(figures.latencyProblem ?? "no latency");
  }
  if (figures.checks !== undefined && figures.checks.failed > 0) {
    column.status = "invalid";
    column.reasons.push(
      `${figures.checks.failed} of ${figures.checks.total} checks failed: responses were not correct`,
    );
  }
  if (figures.droppedIterations > 0) {
    if (column.status === "ok") column.status = "loadgen-bound";
    column.reasons.push(
      `k6 dropped ${figures.droppedIterations} iterations: it could not keep the arrival rate`,
    );
  }
  if (column.status !== "ok" || figures.latency === undefined) return column;
  const t = figures.latency;
  const successful = figures.requests - figures.failed;
  const rps = figures.durationS > 0 ? successful / figures.durationS : 0;
  const percentiles = withoutUndefined({ p90: t["p(90)"], p95: t["p(95)"], p99: t["p(99)"] });
  column.values = {
    rps,
    latencyMs: { min: t.min, mean: t.avg, p50: t.med, max: t.max, ...percentiles },
    errors: figures.failed,
    perRepetition: { rps: [rps], p99Ms: t["p(99)"] === undefined ? [] : [t["p(99)"]] },
    percentilesMs: {},
  };
  return column;
}

/** Parses `NAME=FILE` as given to --k6-summary. */
export function parseK6SummaryArg(arg: string) {
  const at = arg.indexOf("=");
  if (at <= 0 || at === arg.length - 1) {
    throw new UserError(`--k6-summary: expected NAME=FILE, got '${arg}'`);
  }
  return { name: arg.slice(0, at), file: arg.slice(at + 1) };
}

/** A report model from summaries already read: the first is the baseline. */
export function buildK6Report(
  inputs: ReadonlyArray<ReturnType<typeof parseK6SummaryArg> & { figures: K6Figures }>,
  options: { scenario?: string } = {},
): ReportModel {
  const twice = inputs.find((input, i) => inputs.findIndex((other) => other.name === input.name) < i);
  if (twice !== undefined) throw new UserError(`--k6-summary: the name '${twice.name}' is given twice`);
  const columns = inputs.map((i) => k6Column(i.name, i.figures));
  const chosen = chooseBaseline(columns, inputs[0]?.name);
  const group: ReportModel["groups"][number] = {
    scenario: options.scenario ?? "k6",
    valuesNote:
      "Values from one k6 run each: latency of successful responses, requests/sec of successful requests, errors = failed requests (http_req_failed).",
    columns: orderColumns(columns, chosen.baseline),
    ...chosen,
  };
  return {
    header: {
      title: "proxybench report from k6 summaries",
      facts: inputs.map((i) => [i.name, `${i.file} (${i.figures.format}, ${i.figures.requests} requests)`]),
      skipped: [],
    },
    groups: [group],
  };
}

export async function k6Report(
  args: readonly string[],
  options: { scenario?: string } = {},
): Promise<ReportModel> {
  const inputs = args.map(parseK6SummaryArg);
  const read = [];
  for (const input of inputs) read.push({ ...input, figures: await readK6Summary(input.file) });
  return buildK6Report(read, options);
}
