import type { RestEndpointMethodTypes } from "@octokit/rest";
import type { GitHubClient } from "./client.js";
import { isOwnComment, tokenLogin } from "./comment.js";
import { buildIssueBody, ISSUE_LABEL, issueMarker, parseIssueBody } from "./issue-body.js";

/**
 * Keeps one issue per key (a series: suite and bench), found again by the label and the key's
 * marker (issue-body.ts), written by the token's own account (an issue anyone else wrote is never
 * ours, whatever it carries). A key whose candidates are all filed already is left alone; one with
 * a new candidate gets its open issue's body updated, or a new issue when it has none open.
 */

/** What one issue is about and what it says. */
export interface IssueItem {
  key: readonly string[];
  /** For messages: `suite / bench`. */
  name: string;
  /** Ids that call for the issue (a regression's first commit after the change). */
  candidates: readonly string[];
  title: string;
  markdown: string;
}

export interface IssueSettings {
  owner: string;
  repo: string;
  items: readonly IssueItem[];
  label?: string;
  /** The account the issues are written as; default: the token's own. */
  author?: string;
  log?: (line: string) => void;
}

type ListedIssue = RestEndpointMethodTypes["issues"]["listForRepo"]["response"]["data"][number];

/** The repository the issues are filed in, and their label. */
type Target = Pick<IssueSettings, "owner" | "repo"> & { label: string };

/** What is filed already under a marker: its open issue (the oldest) and every id filed. */
interface Filed {
  open?: ListedIssue;
  ids: Set<string>;
}

/** Our issues with the label, open and closed, every page read, by marker. */
async function filedIssues(client: GitHubClient, { owner, repo, label }: Target, author: string) {
  const all = await client.paginate(client.rest.issues.listForRepo, {
    owner,
    repo,
    labels: label,
    state: "all",
    per_page: 100,
  });
  const byMarker = new Map<string, Filed>();
  const oldestFirst = all
    .filter((issue) => issue.pull_request === undefined && isOwnComment(issue.user, author))
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.number - b.number);
  for (const issue of oldestFirst) {
    const parsed = parseIssueBody(issue.body);
    if (!parsed) continue;
    const entry = byMarker.get(parsed.marker) ?? { ids: new Set<string>() };
    for (const id of parsed.filed) entry.ids.add(id);
    if (issue.state === "open" && !entry.open) entry.open = issue;
    byMarker.set(parsed.marker, entry);
  }
  return byMarker;
}

/** Creates or updates the issue of every item with a candidate not filed yet. */
export async function fileIssues(client: GitHubClient, settings: IssueSettings) {
  const log = settings.log ?? (() => undefined);
  const author = settings.author ?? (await tokenLogin(client));
  const target: Target = { ...settings, label: settings.label ?? ISSUE_LABEL };
  const filed = await filedIssues(client, target, author);
  const outcomes: Array<Awaited<ReturnType<typeof fileOne>>> = [];
  for (const item of settings.items) {
    const known = filed.get(issueMarker(item.key)) ?? { ids: new Set<string>() };
    const fresh = [...new Set(item.candidates)].filter((id) => !known.ids.has(id));
    if (fresh.length === 0) continue;
    const outcome = await fileOne(client, target, item, known, fresh);
    log(`${outcome.action} issue #${outcome.number} for ${item.name} (${fresh.length} new)`);
    outcomes.push(outcome);
  }
  return outcomes;
}

async function fileOne(
  client: GitHubClient,
  { owner, repo, label }: Target,
  item: IssueItem,
  known: Filed,
  fresh: string[],
) {
  // An open issue keeps what it filed before; a new one lists only what is new.
  const listed = known.open ? [...(parseIssueBody(known.open.body)?.filed ?? []), ...fresh] : fresh;
  const body = buildIssueBody(item.key, new Set(listed), item.markdown);
  // `filed`: the candidates filed by this run.
  const said = { name: item.name, filed: fresh };
  if (known.open) {
    const { data } = await client.rest.issues.update({ owner, repo, issue_number: known.open.number, body });
    return { ...said, action: "updated" as const, number: data.number, url: data.html_url };
  }
  await ensureLabel(client, owner, repo, label);
  const { data } = await client.rest.issues.create({ owner, repo, title: item.title, body, labels: [label] });
  // GitHub drops a label it does not let the token set, silently: the issue would never be found
  // again, and every run would open another.
  if (!data.labels.some((l) => (typeof l === "string" ? l : l.name) === label)) {
    throw new Error(
      `issue #${data.number} was created without the label ${label}: the token cannot label issues`,
    );
  }
  return { ...said, action: "created" as const, number: data.number, url: data.html_url };
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
