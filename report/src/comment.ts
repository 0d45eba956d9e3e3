import { createClient } from "../../src/github/client.js";
import { upsertStickyComment } from "../../src/github/comment.js";
import { readRefusal } from "../../src/github/refusal.js";
import type { ReportSettings } from "./input-helper.js";
import { findPullRequest } from "./pull-request.js";
import type { ReportDeps } from "./report.js";

/** A token that may not write comments: forks' and Dependabot's pull_request tokens are read-only. */
const READ_ONLY_TOKEN_HINT =
  "the token may not comment on this pull request (a fork's or Dependabot's pull_request run gets a " +
  "read-only token): no comment written; for those, use workflows/fork-benchmark.yml + fork-comment.yml";

/** The commit a comment is for, and its time (a newer comment is never replaced by an older one). */
export interface CommentHead {
  sha: string;
  time: string;
}

/** The comment's URL ("" when none was written), and the error that fails the step, if one does. */
export interface CommentResult {
  url: string;
  error?: string;
}

/**
 * What GitHub's refusal means for the step (undefined: not a refusal, rethrown): a read-only
 * token or a locked pull request is a warning and the step goes on; a rate limit, or any other
 * 403, fails the step, said as what it is.
 */
function refused(err: unknown, pr: number | undefined, deps: ReportDeps): CommentResult | undefined {
  const refusal = readRefusal(err);
  if (refusal === undefined) return undefined;
  const warn = deps.warn ?? deps.log;
  const status = `${refusal.status}: ${refusal.message}`;
  const on = pr === undefined ? "" : ` on #${pr}`;
  switch (refusal.kind) {
    case "read-only":
      warn(`${READ_ONLY_TOKEN_HINT} (${status})`);
      return { url: "" };
    case "locked":
      warn(`pull request #${pr} is locked: no comment written; the report is in the job summary (${status})`);
      return { url: "" };
    case "rate-limited":
      return {
        url: "",
        error: `GitHub's rate limit stopped the comment${on} (${status}${refusal.until ? `; ${refusal.until}` : ""}): no comment written, run the job again later`,
      };
    case "forbidden":
      return { url: "", error: `GitHub refused the comment${on} (${status}): no comment written` };
  }
}

/** Creates or updates the sticky comment on the run's pull request. */
export async function comment(
  settings: ReportSettings,
  markdown: string,
  head: CommentHead,
  deps: ReportDeps,
): Promise<CommentResult> {
  const client = createClient({
    token: settings.token ?? "",
    baseUrl: settings.apiUrl,
    log: deps.log,
    ...(deps.clientDelayMs !== undefined ? { delayBaseMs: deps.clientDelayMs } : {}),
  });
  let pr: number | undefined;
  try {
    const found = await findPullRequest(client, settings);
    if ("none" in found) {
      deps.log(`no pull request for this run (${found.none}): no comment`);
      return { url: "" };
    }
    if ("refused" in found) {
      (deps.warn ?? deps.log)(`no comment: ${found.refused}`);
      return { url: "" };
    }
    pr = found.pr;
    const outcome = await upsertStickyComment(client, {
      owner: settings.owner,
      repo: settings.repo,
      pr,
      markdown,
      id: settings.marker,
      head: { sha: settings.headSha ?? head.sha, time: head.time },
      ...(settings.detailsUrl !== undefined ? { detailsUrl: settings.detailsUrl } : {}),
      log: deps.log,
    });
    deps.log(`comment ${outcome.action} on #${pr}: ${outcome.reason}`);
    return { url: outcome.url ?? "" };
  } catch (err) {
    const result = refused(err, pr, deps);
    if (result === undefined) throw err;
    return result;
  }
}
