import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { findChangesInFile } from "../changes/find.js";
import type { CommitContext } from "../publish/entries.js";
import { usernamesFromEventFile } from "../publish/event.js";
import { normaliseDir, publish, type PublishOutcome, type PublishSettings } from "../publish/publish.js";
import { resolveRemote } from "../publish/git.js";
import { UserError } from "../util/errors.js";
import { fileSize, isDirectory } from "../util/paths.js";
import { parseNonNegativeInt, parsePositiveInt, textFlag } from "./options.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";

interface PublishFlags {
  repo: string;
  branch: string;
  dir: string;
  maxItems?: number;
  message?: string;
  pushRetries: number;
  repoUrl?: string;
  variant?: string;
  changes?: boolean;
  changesOut?: string;
}

/** Git's rules for a branch name (git check-ref-format --branch), so a bad --branch stops before git runs (pure). */
export function isBranchName(name: string): boolean {
  return (
    name !== "" &&
    name !== "@" &&
    !name.startsWith("-") &&
    !/[/.]$/.test(name) &&
    !name.endsWith(".lock") &&
    // control characters, space and ~^:?*[\; "..", "//", "@{", and a part that starts with "."
    // eslint-disable-next-line no-control-regex
    !/[\x00-\x20\x7f~^:?*[\\]|\.\.|\/\/|@\{|(^|\/)\./.test(name)
  );
}

/**
 * A local --repo is a git repository (a bare one, or a work tree's): git would fail on anything
 * else only once it runs, with its own words. URLs are left to git.
 */
async function checkLocalRepository(repo: string): Promise<void> {
  const resolved = resolveRemote(repo);
  if (!path.isAbsolute(resolved)) return;
  const bare =
    (await fileSize(path.join(resolved, "HEAD"))) > 0 && (await isDirectory(path.join(resolved, "objects")));
  if (!bare && !(await isDirectory(path.join(resolved, ".git")))) {
    throw new UserError(`--repo ${repo}: not a git repository (give a bare repository's path, or a URL)`);
  }
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
  if (!isBranchName(flags.branch)) throw new UserError(`--branch ${flags.branch}: not a valid branch name`);
  if (flags.changesOut !== undefined && !flags.changes) {
    throw new UserError(
      `--changes-out ${flags.changesOut}: only with --changes (the change points are found then)`,
    );
  }
  if (flags.repoUrl !== undefined && !/^https?:\/\/[^/\s]+\/\S+$/.test(flags.repoUrl)) {
    throw new UserError(`--repo-url ${flags.repoUrl}: expected https://github.com/OWNER/NAME`);
  }
  return {
    resultsDir,
    remote: flags.repo,
    branch: flags.branch,
    dir: normaliseDir(flags.dir),
    maxItems: flags.maxItems,
    message: flags.message,
    retries: flags.pushRetries,
    token: env.GITHUB_TOKEN || undefined,
    context: commitContextFromEnv(env, flags.repoUrl),
    ...pickDefined(flags, ["variant"]),
    ...(flags.changes ? { findChanges: (file: string) => findChangesInFile(file) } : {}),
  };
}

/**
 * The change points found, written to `--changes-out` for `proxybench issues`; a finder that
 * failed is an error once the history is pushed (the points are safe, the marks and issues not).
 */
async function reportChanges(outcome: PublishOutcome, changesOut: string | undefined): Promise<void> {
  if (outcome.changesError !== undefined) {
    throw new UserError(`published, but the change points could not be found: ${outcome.changesError}`, 1);
  }
  if (changesOut !== undefined && outcome.changes) {
    await writeFile(changesOut, `${JSON.stringify(outcome.changes, null, 2)}\n`);
  }
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
    .option("--push-retries <n>", "fetch-and-reapply rounds after a rejected push", parseNonNegativeInt, 10)
    .addOption(
      textFlag(
        "--repo-url <url>",
        "https://github.com/OWNER/NAME for commit links",
        "from GITHUB_REPOSITORY",
      ),
    )
    .option(
      "--changes",
      "find the history's change points with Apache Otava (as `proxybench changes`) and write changes.js beside data.js: the chart page marks them",
    )
    .option(
      "--changes-out <file>",
      "with --changes, also write the change points found here (the JSON of `proxybench changes --format json`), for `proxybench issues`",
    )
    .action(async (dirs: string[], flags: PublishFlags) => {
      const settings = publishSettings(dirs.length === 1 ? dirs[0]! : dirs, flags, process.env);
      await checkLocalRepository(flags.repo);
      const outcome = await publish({
        ...settings,
        log: (line) => process.stderr.write(`publish: ${line}\n`),
      });
      process.stdout.write(
        `published ${outcome.suites.length} suites for ${outcome.commitId.slice(0, 12)} to ${settings.branch}:${settings.dir}/data.js (${outcome.attempts} attempt${outcome.attempts === 1 ? "" : "s"})\n`,
      );
      await reportChanges(outcome, flags.changesOut);
    });
}
