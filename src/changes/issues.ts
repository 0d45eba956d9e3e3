import type { GitHubClient } from "../github/client.js";
import { isOwnComment, tokenLogin } from "../github/comment.js";
import {
  ISSUE_LABEL,
  issueBody,
  issueTitle,
  parseIssueBody,
  regressions,
  seriesMarker,
} from "./issue-body.js";
import type { SeriesChanges } from "./types.js";

/**
 * Files the regressions of a history's change points as GitHub issues: one issue per series,
 * found again by the label and the series' marker (issue-body.ts), written by the token's own
 * account (an issue anyone else wrote is never ours, whatever it carries). A series whose
 * regressions are all filed already is left alone; one with a new regression gets its open issue
 * updated, or a new issue when it has none open.
 */

export interface IssueSettings {
  owner: string;
  repo: string;
  series: readonly SeriesChanges[];
  /** https://github.com/OWNER/NAME: the commit ranges link there. */
  repoUrl?: string;
  label?: string;
  /** The account the issues are written as; default: the token's own. */
  author?: string;
  log?: (line: string) => void;
}

export interface IssueOutcome {
  suite: string;
  bench: string;
  action: "created" | "updated";
  number: number;
  url: string;
  /** The change points filed by this run (their first commit after the change). */
  filed: string[];
}

interface ListedIssue {
  number: number;
  state?: string;
  body?: string | null;
  html_url: string;
  created_at: string;
  user?: { login?: string; type?: string } | null;
  pull_request?: unknown;
}

/** What is filed already: per series marker, its open issue (the oldest) and every commit filed. */
interface Filed {
  open?: ListedIssue;
  commits: Set<string>;
}

/** Our issues with the label, open and closed, every page read, by series marker. */
async function filedIssues(client: GitHubClient, settings: IssueSettings, author: string) {
  const all = (await client.paginate(client.rest.issues.listForRepo, {
    owner: settings.owner,
    repo: settings.repo,
    labels: settings.label ?? ISSUE_LABEL,
    state: "all",
    per_page: 100,
  })) as ListedIssue[];
  const byMarker = new Map<string, Filed>();
  const oldestFirst = all
    .filter((issue) => issue.pull_request === undefined && isOwnComment(issue.user, author))
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.number - b.number);
  for (const issue of oldestFirst) {
    const parsed = parseIssueBody(issue.body);
    if (!parsed) continue;
    const entry = byMarker.get(parsed.marker) ?? { commits: new Set<string>() };
    for (const id of parsed.filed) entry.commits.add(id);
    if (issue.state === "open" && !entry.open) entry.open = issue;
    byMarker.set(parsed.marker, entry);
  }
  return byMarker;
}

/** Creates or updates the issue of every series with a regression not filed yet. */
export async function fileChangeIssues(
  client: GitHubClient,
  settings: IssueSettings,
): Promise<IssueOutcome[]> {
  const log = settings.log ?? (() => undefined);
  const author = settings.author ?? (await tokenLogin(client));
  const filed = await filedIssues(client, settings, author);
  const outcomes: IssueOutcome[] = [];
  for (const series of settings.series) {
    const known = filed.get(seriesMarker(series)) ?? { commits: new Set<string>() };
    const fresh = regressions(series)
      .map((c) => c.after.id)
      .filter((id) => !known.commits.has(id));
    if (fresh.length === 0) continue;
    const outcome = await fileOne(client, settings, series, known, fresh);
    log(
      `${outcome.action} issue #${outcome.number} for ${series.suite} / ${series.bench} (${fresh.length} new)`,
    );
    outcomes.push(outcome);
  }
  return outcomes;
}

async function fileOne(
  client: GitHubClient,
  settings: IssueSettings,
  series: SeriesChanges,
  known: Filed,
  fresh: string[],
): Promise<IssueOutcome> {
  const { owner, repo } = settings;
  // An open issue keeps what it filed before; a new one lists only what is new.
  const listed = known.open ? [...(parseIssueBody(known.open.body)?.filed ?? []), ...fresh] : fresh;
  const body = issueBody(series, new Set(listed), settings.repoUrl);
  const key = { suite: series.suite, bench: series.bench, filed: fresh };
  if (known.open) {
    const { data } = await client.rest.issues.update({ owner, repo, issue_number: known.open.number, body });
    return { ...key, action: "updated", number: data.number, url: data.html_url };
  }
  const label = settings.label ?? ISSUE_LABEL;
  await ensureLabel(client, owner, repo, label);
  const { data } = await client.rest.issues.create({
    owner,
    repo,
    title: issueTitle(series),
    body,
    labels: [label],
  });
  // GitHub drops a label it does not let the token set, silently: the issue would never be found
  // again, and every run would open another.
  if (!data.labels.some((l) => (typeof l === "string" ? l : l.name) === label)) {
    throw new Error(
      `issue #${data.number} was created without the label ${label}: the token cannot label issues`,
    );
  }
  return { ...key, action: "created", number: data.number, url: data.html_url };
}

/** Creates the label when the repository does not have it yet (read from its list: no 404 logged). */
async function ensureLabel(client: GitHubClient, owner: string, repo: string, name: string): Promise<void> {
  const labels = await client.paginate(client.rest.issues.listLabelsForRepo, { owner, repo, per_page: 100 });
  if (labels.some((l) => l.name.toLowerCase() === name.toLowerCase())) return;
  await client.rest.issues.createLabel({
    owner,
    repo,
    name,
    color: "d73a4a",
    description: "A regression among the benchmark history's change points (proxybench issues)",
  });
}
