import { createClient, type GitHubClient } from "../../src/github/client.js";
import { upsertStickyComment, type StickyCommentOutcome } from "../../src/github/comment.js";
import { writeJobSummary } from "../../src/github/summary.js";
import { compareResults, type Comparison, type Verdict } from "../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../src/report/compare-markdown.js";
import { renderMarkdownReport } from "../../src/report/markdown.js";
import { readResults } from "../../src/results/io.js";
import type { Results } from "../../src/results/schema.js";
import type { ReportSettings } from "./input-helper.js";

export interface ReportOutcome {
  /** Empty without a base. */
  verdict: Verdict | "";
  regressions: number;
  commentUrl: string;
  markdown: string;
  failed: boolean;
}

/** One word for a whole comparison: any regression wins, then improvements, then doubt (pure). */
export function overallVerdict(comparison: Comparison): Verdict {
  const c = comparison.counts;
  if (c.regressed > 0) return "regressed";
  if (c.improved > 0) return "improved";
  if (c.inconclusive > 0) return "inconclusive";
  return "unchanged";
}

/** The markdown of the comment and the summary (pure). */
export function renderReport(
  head: Results,
  comparison: Comparison | undefined,
  baselineProxy?: string,
): string {
  const tables = renderMarkdownReport(head, baselineProxy !== undefined ? { baselineProxy } : {});
  if (comparison === undefined) return tables;
  return [
    renderComparisonMarkdown(comparison, { showUnchanged: false }),
    "<details><summary>All results of the head</summary>",
    "",
    tables,
    "</details>",
    "",
  ].join("\n");
}

/**
 * The pull request a report belongs to: the one given (input or event), else the open pull
 * request whose head is `headSha` (workflow_run events from forks carry no pull request).
 */
export async function findPullRequest(
  client: GitHubClient,
  settings: Pick<ReportSettings, "owner" | "repo" | "pr" | "headSha">,
): Promise<number | undefined> {
  if (settings.pr !== undefined) return settings.pr;
  if (settings.headSha === undefined) return undefined;
  const sha = settings.headSha.toLowerCase();
  const open = await client.paginate(client.rest.pulls.list, {
    owner: settings.owner,
    repo: settings.repo,
    state: "open",
    per_page: 100,
  });
  return open.find((pull) => pull.head.sha.toLowerCase() === sha)?.number;
}

export interface ReportDeps {
  log: (line: string) => void;
  /** Tests shorten the retry waits. */
  clientDelayMs?: number;
}

/** Compares, writes the summary and the comment; the caller sets the outputs. */
export async function report(settings: ReportSettings, deps: ReportDeps): Promise<ReportOutcome> {
  const head = await readResults(settings.results);
  let comparison: Comparison | undefined;
  if (settings.baseResults !== undefined) {
    const base = await readResults(settings.baseResults);
    comparison = compareResults(base, head, { thresholdPct: settings.thresholdPct, alpha: settings.alpha });
  }
  const markdown = renderReport(head, comparison, settings.baselineProxy);

  if (settings.summary && (await writeJobSummary(markdown))) deps.log("report added to the job summary");

  let commentUrl = "";
  if (settings.comment && settings.token !== undefined) {
    const client = createClient({
      token: settings.token,
      baseUrl: settings.apiUrl,
      log: deps.log,
      ...(deps.clientDelayMs !== undefined ? { delayBaseMs: deps.clientDelayMs } : {}),
    });
    const pr = await findPullRequest(client, settings);
    if (pr === undefined) {
      deps.log("no pull request for this run (none in the event, none open for the head commit): no comment");
    } else {
      const outcome: StickyCommentOutcome = await upsertStickyComment(client, {
        owner: settings.owner,
        repo: settings.repo,
        pr,
        markdown,
        id: settings.marker,
        head: {
          sha: settings.headSha ?? head.environment.git.commit,
          time: head.environment.git.timestamp ?? head.startedAt,
        },
        ...(settings.detailsUrl !== undefined ? { detailsUrl: settings.detailsUrl } : {}),
        log: deps.log,
      });
      deps.log(`comment ${outcome.action} on #${pr}: ${outcome.reason}`);
      commentUrl = outcome.url ?? "";
    }
  }

  const regressions = comparison?.counts.regressed ?? 0;
  return {
    verdict: comparison === undefined ? "" : overallVerdict(comparison),
    regressions,
    commentUrl,
    markdown,
    failed: settings.failOnRegression && regressions > 0,
  };
}
