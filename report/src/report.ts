import { writeJobSummary } from "../../src/github/summary.js";
import type { Verdict } from "../../src/report/compare.js";
import { commentFromPaths } from "../../src/comment/comment-runs.js";
import type { ReportSettings } from "./input-helper.js";
import { comment, type CommentHead } from "./comment.js";
import { withoutUndefined } from "../../src/util/objects.js";

export interface ReportOutcome {
  /** Empty without a base. */
  verdict: Verdict | "";
  regressions: number;
  commentUrl: string;
  markdown: string;
  /** Why the step fails (fail-on-regression); undefined: it does not. */
  failure?: string;
}

/** The links under the summary: the results artifact, the history chart, the run (pure). */
function summaryLinks(settings: Pick<ReportSettings, "artifactUrl" | "chartUrl" | "detailsUrl">): string {
  const links = [
    settings.artifactUrl && `[results artifact](${settings.artifactUrl})`,
    settings.chartUrl && `[history chart](${settings.chartUrl})`,
    settings.detailsUrl && `[this run](${settings.detailsUrl})`,
  ].filter((l): l is string => typeof l === "string" && l !== "");
  return links.length === 0 ? "" : `\n${links.join(" · ")}\n`;
}

export interface ReportDeps {
  log: (line: string) => void;
  /** A problem that does not fail the step (default: log). */
  warn?: (line: string) => void;
  /** Tests shorten the retry waits. */
  clientDelayMs?: number;
}

/**
 * Compares, writes the summary and the comment; the caller sets the outputs. The comment is the
 * one `proxybench comment` posts for the same runs (src/comment/pr-comment.ts): counted first.
 */
export async function report(settings: ReportSettings, deps: ReportDeps): Promise<ReportOutcome> {
  const built = await commentFromPaths(settings.results, settings);
  return deliver(settings, built, deps);
}

/**
 * Why the step fails: under fail-on-regression, regressions or a comparison that fell short; in
 * any case, a comment GitHub refused for a reason other than the token or a lock (pure).
 */
function failureOf(
  failOnRegression: boolean,
  report: { regressions: number; shortfall?: string | undefined },
  commentError: string | undefined,
): string | undefined {
  const strict = [
    ...(report.regressions > 0 ? [`${report.regressions} metric(s) regressed`] : []),
    ...(report.shortfall !== undefined ? [report.shortfall] : []),
  ];
  const reasons = [
    ...(failOnRegression && strict.length > 0 ? [`${strict.join("; ")} (fail-on-regression is set)`] : []),
    ...(commentError !== undefined ? [commentError] : []),
  ];
  return reasons.length === 0 ? undefined : reasons.join("; ");
}

/**
 * Writes a rendered report to the job summary and the sticky comment, as the settings ask;
 * returns what the action's outputs are set from.
 */
async function deliver(
  settings: ReportSettings,
  report: Pick<ReportOutcome, "markdown" | "verdict" | "regressions"> & {
    head: CommentHead;
    /** What the comparison could not speak for: named as a warning, fails the step under fail-on-regression. */
    shortfall?: string | undefined;
  },
  deps: ReportDeps,
): Promise<ReportOutcome> {
  if (report.shortfall !== undefined)
    (deps.warn ?? deps.log)(`verdict ${report.verdict}: ${report.shortfall}`);
  if (settings.summary && (await writeJobSummary(`${report.markdown}${summaryLinks(settings)}`)))
    deps.log("report added to the job summary");
  const commented =
    settings.comment && settings.token !== undefined
      ? await comment(settings, report.markdown, report.head, deps)
      : { url: "" };
  return {
    verdict: report.verdict,
    regressions: report.regressions,
    commentUrl: commented.url,
    markdown: report.markdown,
    ...withoutUndefined({ failure: failureOf(settings.failOnRegression, report, commented.error) }),
  };
}
