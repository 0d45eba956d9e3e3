import { type Command, InvalidArgumentError } from "commander";
import { checkMarkerId, safeLink, type HeadInfo } from "../github/body.js";
import { createClient } from "../github/client.js";
import { apiError } from "./api-error.js";
import { isCommitSha, isPullRequestNumber, parseRepository } from "../github/identifiers.js";
import { upsertStickyComment } from "../github/comment.js";
import { writeJobSummary } from "../github/summary.js";
import { commentFromPaths } from "../comment/comment-runs.js";
import { checkBaselineProxy } from "../report/model.js";
import { UserError } from "../util/errors.js";
import { readUserFile } from "../util/files.js";
import { judging, option, textFlag, type FlagValues } from "./options.js";

interface CommentFlags extends Pick<FlagValues, "threshold" | "alpha" | "floor" | "baselineProxy"> {
  pr: number;
  headSha?: string;
  headTime?: string;
  detailsUrl?: string;
  marker: string;
  runnerName?: string;
  baseResults?: string;
  markdown?: string;
  /** OWNER/NAME. */
  repo: string;
}

function prNumber(value: string): number {
  const n = Number(value);
  if (!isPullRequestNumber(n)) throw new InvalidArgumentError(`'${value}' is not a pull request number`);
  return n;
}

/** Reads and checks every input; errors name the flag or variable (pure apart from `env`). */
function commentSettings(results: string[], flags: CommentFlags, env: NodeJS.ProcessEnv) {
  if ((results.length === 0) === (flags.markdown === undefined)) {
    throw new UserError(
      "comment: give either RESULTS_DIR or --markdown FILE (one of them; RESULTS_DIR may be several)",
    );
  }
  const repo = parseRepository(flags.repo);
  if (!repo) throw new UserError(`--repo ${flags.repo}: expected OWNER/NAME`);
  if (flags.headSha !== undefined && !isCommitSha(flags.headSha)) {
    throw new UserError(`--head-sha ${flags.headSha}: expected a hexadecimal commit sha`);
  }
  if (flags.headTime !== undefined && Number.isNaN(Date.parse(flags.headTime))) {
    throw new UserError(`--head-time ${flags.headTime}: expected an ISO 8601 time`);
  }
  if (flags.detailsUrl !== undefined && !safeLink(flags.detailsUrl)) {
    throw new UserError(`--details-url ${flags.detailsUrl}: expected an http(s) URL`);
  }
  let marker: string;
  try {
    marker = checkMarkerId(flags.marker);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  const judged = judging(flags);
  // Checked last: a bad flag is reported first, whatever the environment.
  const token = env.GITHUB_TOKEN;
  if (!token)
    throw new UserError("GITHUB_TOKEN is not set: the comment needs a token with pull-requests: write");
  const { markdown, repo: _repo, threshold: _t, alpha: _a, floor: _f, ...given } = flags;
  return {
    ...given,
    source: results.length > 0 ? { results } : { markdownFile: markdown! },
    owner: repo.owner,
    repo: repo.repo,
    marker,
    ...judged,
    token,
    apiUrl: env.GITHUB_API_URL || undefined,
  };
}

/** The markdown and the head it describes: from results.json, or a file plus the flags. */
async function loadReport(
  settings: ReturnType<typeof commentSettings>,
  now: Date,
): Promise<{ markdown: string; head: HeadInfo }> {
  if (settings.source.results !== undefined) {
    const built = await commentFromPaths(settings.source.results, settings, (runs) => {
      if (settings.baselineProxy !== undefined && runs.wallClock !== undefined) {
        checkBaselineProxy(settings.baselineProxy, runs.wallClock.head);
      }
    });
    return {
      markdown: built.markdown,
      head: { sha: settings.headSha ?? built.head.sha, time: settings.headTime ?? built.head.time },
    };
  }
  const file = settings.source.markdownFile;
  const markdown = await readUserFile(file, `--markdown ${file}: cannot read`);
  return { markdown, head: { sha: settings.headSha, time: settings.headTime ?? now.toISOString() } };
}

export function register(program: Command): void {
  program
    .command("comment")
    .description(
      "Create or update one sticky pull request comment with the report (found by a hidden marker): " +
        "the same comment the report action posts, counted verdicts first",
    )
    .argument(
      "[results...]",
      "results directories to report: wall-clock runs (results.json, shards merged) and a counted run (instructions.json)",
    )
    .option("--markdown <file>", "post this markdown instead of a report of RESULTS_DIR")
    .requiredOption("--repo <owner/name>", "repository of the pull request")
    .requiredOption("--pr <number>", "pull request number", prNumber)
    .addOption(textFlag("--head-sha <sha>", "head commit the report is for", "the results' commit"))
    .addOption(textFlag("--head-time <iso>", "time of that commit", "the results' commit time, else now"))
    .option("--details-url <url>", "link to the full report (e.g. the run URL), used when the body is cut")
    .option("--marker <id>", "marker id: one sticky comment per id", "proxybench")
    .addOption(option("baselineProxy"))
    .option("--base-results <dir>", "a base run measured at another time (unpaired)")
    .addOption(option("threshold"))
    .addOption(option("alpha"))
    .addOption(option("floor"))
    .option("--runner-name <name>", "the benchmark runner's name, shown where it was measured")
    .action(async (results: string[], flags: CommentFlags) => {
      const settings = commentSettings(results, flags, process.env);
      const { markdown, head } = await loadReport(settings, new Date());
      if (await writeJobSummary(markdown)) process.stderr.write("comment: report added to the job summary\n");
      const log = (line: string) => process.stderr.write(`comment: ${line}\n`);
      const client = createClient({ token: settings.token, baseUrl: settings.apiUrl, log });
      const outcome = await upsertStickyComment(client, {
        owner: settings.owner,
        repo: settings.repo,
        pr: settings.pr,
        markdown,
        id: settings.marker,
        head,
        detailsUrl: settings.detailsUrl,
        log,
      }).catch((err: unknown) => {
        throw apiError(err, `pull-requests: write, or issues: write, on ${settings.owner}/${settings.repo}`);
      });
      const where = outcome.url ?? `comment ${outcome.commentId ?? "?"}`;
      process.stdout.write(`${outcome.action} ${where}: ${outcome.reason}\n`);
    });
}
