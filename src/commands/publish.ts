import type { Command } from "commander";
import type { CommitContext } from "../publish/entries.js";
import { usernamesFromEventFile } from "../publish/event.js";
import { normaliseDir, publish, type PublishSettings } from "../publish/publish.js";
import { parseNonNegativeInt, parsePositiveInt } from "./options.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";

interface PublishFlags {
  repo: string;
  branch: string;
  dir: string;
  maxItems?: number;
  message?: string;
  retries: number;
  repoUrl?: string;
  variant?: string;
}

/** What a GitHub workflow tells us about the commit (read here, passed down as arguments). */
export function commitContextFromEnv(env: NodeJS.ProcessEnv, repoUrl?: string): CommitContext {
  const server = (env.GITHUB_SERVER_URL ?? "https://github.com").replace(/\/+$/, "");
  const url = repoUrl ?? (env.GITHUB_REPOSITORY ? `${server}/${env.GITHUB_REPOSITORY}` : undefined);
  const users = usernamesFromEventFile(env.GITHUB_EVENT_PATH);
  return {
    repoUrl: url,
    sha: env.GITHUB_SHA || undefined,
    ...withoutUndefined({ authorUsername: users.author, committerUsername: users.committer }), // never empty
  };
}

export function publishSettings(
  resultsDir: string | string[],
  flags: PublishFlags,
  env: NodeJS.ProcessEnv,
): PublishSettings {
  return {
    resultsDir,
    remote: flags.repo,
    branch: flags.branch,
    dir: normaliseDir(flags.dir),
    maxItems: flags.maxItems,
    message: flags.message,
    retries: flags.retries,
    token: env.GITHUB_TOKEN || undefined,
    context: commitContextFromEnv(env, flags.repoUrl),
    ...pickDefined(flags, ["variant"]),
  };
}

export function register(program: Command): void {
  program
    .command("publish")
    .description(
      "Append results to a github-action-benchmark data.js on a branch (gh-pages) and push, never forced",
    )
    .argument(
      "<results-dirs...>",
      "results directory (or results.json) of a run; several: the shards of one run, merged",
    )
    .requiredOption("--repo <path-or-url>", "repository to push to: a path (bare repo) or a URL")
    .option("--branch <name>", "branch holding the history", "gh-pages")
    .option("--dir <folder>", "folder inside the branch for data.js and index.html", "dev/bench")
    .option("--max-items <n>", "keep only the newest N entries per suite", parsePositiveInt)
    .option("--message <text>", "commit message")
    .option(
      "--variant <name>",
      "of a run with variants (--variant), publish this one's cells; a run without variants is published whole",
    )
    .option("--retries <n>", "fetch-and-reapply rounds after a rejected push", parseNonNegativeInt, 10)
    .option(
      "--repo-url <url>",
      "https://github.com/OWNER/NAME for commit links (default: from GITHUB_REPOSITORY)",
    )
    .action(async (dirs: string[], flags: PublishFlags) => {
      const settings = publishSettings(dirs.length === 1 ? dirs[0]! : dirs, flags, process.env);
      const outcome = await publish({
        ...settings,
        log: (line) => process.stderr.write(`publish: ${line}\n`),
      });
      process.stdout.write(
        `published ${outcome.suites.length} suites for ${outcome.commitId.slice(0, 12)} to ${settings.branch}:${settings.dir}/data.js (${outcome.attempts} attempt${outcome.attempts === 1 ? "" : "s"})\n`,
      );
    });
}
