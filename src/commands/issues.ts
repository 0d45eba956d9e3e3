import type { Command } from "commander";
import { parseChanges } from "../publish/changesjs.js";
import { createClient } from "../github/client.js";
import { ISSUE_LABEL } from "../github/issue-body.js";
import { fileIssues } from "../github/issues.js";
import { changeIssueItem } from "../report/change-issues.js";
import { apiError } from "./api-error.js";
import { parseRepository, repositoryWebUrl } from "../github/identifiers.js";
import { UserError } from "../util/errors.js";
import { readUserFile } from "../util/files.js";
import { textFlag } from "./options.js";

interface IssuesFlags {
  /** OWNER/NAME. */
  repo: string;
  repoUrl?: string;
  label: string;
}

/** Reads and checks every input; errors name the flag or variable (pure apart from `env`). */
function issuesSettings(flags: IssuesFlags, env: NodeJS.ProcessEnv) {
  const repo = parseRepository(flags.repo);
  if (!repo) throw new UserError(`--repo ${flags.repo}: expected OWNER/NAME`);
  const server = (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, "");
  const given = flags.repoUrl ?? `${server}/${flags.repo}`;
  const repoUrl = repositoryWebUrl(given);
  if (flags.repoUrl !== undefined && !repoUrl) {
    throw new UserError(`--repo-url ${flags.repoUrl}: expected https://github.com/OWNER/NAME`);
  }
  if (!/^[^,\s][^,]{0,49}$/.test(flags.label)) {
    throw new UserError(`--label ${flags.label}: expected one label name (1 to 50 characters, no comma)`);
  }
  const token = env.GITHUB_TOKEN;
  if (!token) throw new UserError("GITHUB_TOKEN is not set: filing issues needs a token with issues: write");
  return {
    owner: repo.owner,
    repo: repo.repo,
    ...(repoUrl ? { repoUrl } : {}),
    label: flags.label,
    token,
    ...(env.GITHUB_API_URL ? { apiUrl: env.GITHUB_API_URL } : {}),
  };
}

export function register(program: Command): void {
  program
    .command("issues")
    .description(
      "Open or update one GitHub issue per series with a new regression among a history's change points " +
        "(changes.js, or the JSON of `proxybench changes`), found again by a label and a hidden marker",
    )
    .argument(
      "<changes-file>",
      "changes.js (as publish --changes writes it) or the JSON of `proxybench changes`",
    )
    .requiredOption("--repo <owner/name>", "repository the issues are filed in")
    .addOption(
      textFlag(
        "--repo-url <url>",
        "https://github.com/OWNER/NAME for commit links",
        "GITHUB_SERVER_URL/--repo",
      ),
    )
    .option("--label <name>", "label of the issues: they are listed by it", ISSUE_LABEL)
    .action(async (file: string, flags: IssuesFlags) => {
      const settings = issuesSettings(flags, process.env);
      const series = parseChanges(await readUserFile(file), file);
      const log = (line: string) => process.stderr.write(`issues: ${line}\n`);
      const client = createClient({ token: settings.token, baseUrl: settings.apiUrl, log });
      const items = series.map((s) => changeIssueItem(s, settings.repoUrl));
      const outcomes = await fileIssues(client, { ...settings, items, log }).catch((err: unknown) => {
        throw apiError(err, `issues: write on ${settings.owner}/${settings.repo}`);
      });
      for (const o of outcomes) process.stdout.write(`${o.action} ${o.url}: ${o.name}\n`);
      if (outcomes.length === 0) process.stdout.write("no new regression: no issue opened or updated\n");
    });
}
