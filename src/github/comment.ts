import type { RestEndpointMethodTypes } from "@octokit/rest";
import { buildCommentBody, decide, isMarked, parseHead, type HeadInfo } from "./body.js";
import type { GitHubClient } from "./client.js";

export interface StickyCommentSettings {
  owner: string;
  repo: string;
  pr: number;
  markdown: string;
  /** The marker id: one sticky comment per id and pull request. */
  id: string;
  head: HeadInfo;
  detailsUrl?: string;
  /**
   * Login of the account the comment is written as; default: the token's own (GraphQL `viewer`,
   * e.g. github-actions[bot] for GITHUB_TOKEN). Comments by anyone else are never ours, whatever
   * marker they carry.
   */
  author?: string;
  log?: (line: string) => void;
}

export interface StickyCommentOutcome {
  action: "created" | "updated" | "skipped";
  /** The comment kept (created, updated, or left alone). */
  commentId?: number;
  url?: string;
  /** Duplicates removed. */
  deleted: number[];
  truncated: boolean;
  reason: string;
}

type IssueComment = RestEndpointMethodTypes["issues"]["listComments"]["response"]["data"][number];

/** A comment's author as GitHub's REST API gives it: `type` is "Bot" for an app's account. */
type CommentAuthor = Partial<Pick<NonNullable<IssueComment["user"]>, "login" | "type">>;

/**
 * Whether a comment was written by the token's own account (pure). `account` is GraphQL's viewer
 * login: `NAME[bot]` for an app's installation token (GITHUB_TOKEN's is github-actions[bot]), a
 * person's login for a personal token. Who wrote a comment is GitHub's `user.type`, never a
 * login's spelling: a bot's comment is ours when its author is a bot (`type` "Bot") named
 * `account` (or `account[bot]`); a person's when its author is that very person. A person whose
 * login is an app's name without "[bot]" is never that app.
 */
export function isOwnComment(user: CommentAuthor | null | undefined, account: string): boolean {
  const login = user?.login?.toLowerCase();
  const me = account.toLowerCase();
  if (!login || me === "") return false;
  if (user?.type === "Bot") return login === me || login === `${me}[bot]`;
  return login === me && !me.endsWith("[bot]");
}

/**
 * The login of the token's account. GraphQL's `viewer`, because REST's GET /user refuses
 * installation tokens such as GITHUB_TOKEN ("Resource not accessible by integration").
 */
export async function tokenLogin(client: GitHubClient): Promise<string> {
  let login: string | undefined;
  try {
    const data = await client.graphql<{ viewer?: { login?: string } }>("query { viewer { login } }");
    login = data.viewer?.login;
  } catch (err) {
    // An HTTP error (a rejected token, a rate limit) keeps its status for the caller's message.
    if (typeof (err as { status?: unknown }).status === "number") throw err;
    throw new Error(
      `cannot tell which account the token belongs to (GraphQL viewer: ${(err as Error).message}); ` +
        "what we wrote (a sticky comment, an issue) is found by its marker and its author",
    );
  }
  if (!login) throw new Error("cannot tell which account the token belongs to: GraphQL viewer has no login");
  return login;
}

/**
 * Creates or updates the one comment carrying our marker on a pull request. Every page of
 * comments is read; extra comments with the same marker are deleted, keeping the oldest (its
 * place in the conversation and its id stay); a comment written for a newer head commit is left
 * alone (see `decide`).
 */
export async function upsertStickyComment(
  client: GitHubClient,
  settings: StickyCommentSettings,
): Promise<StickyCommentOutcome> {
  const upsert = await upsertOf(client, settings);
  const { log, body } = upsert;
  const { owner, repo, pr } = settings;
  const ours = await markedComments(upsert);
  if (ours.length > 0) return update(upsert, ours, []);

  const { data: created } = await client.rest.issues.createComment({ owner, repo, issue_number: pr, body });
  // Another run may have created one at the same moment: the oldest stays, ours goes.
  const now = await markedComments(upsert);
  const oldest = now[0];
  if (!oldest || oldest.id === created.id) {
    return outcome(upsert, "created", created, [], "no comment with the marker yet");
  }
  log(`another run created the comment at the same time: keeping ${oldest.id}, removing ${created.id}`);
  await client.rest.issues.deleteComment({ owner, repo, comment_id: created.id });
  const others = now.filter((c) => c.id !== created.id);
  return update(upsert, others, [created.id]);
}

/** What one upsert works with: the client, the settings (author known), the body written. */
async function upsertOf(client: GitHubClient, settings: StickyCommentSettings) {
  const log = settings.log ?? (() => undefined);
  const { body, truncated } = buildCommentBody(settings.markdown, settings);
  if (truncated) log(`the report is longer than a comment allows: cut to ${body.length} characters`);
  const author = settings.author ?? (await tokenLogin(client));
  return { client, settings: { ...settings, author }, log, body, truncated };
}
type Upsert = Awaited<ReturnType<typeof upsertOf>>;

function outcome(
  upsert: Upsert,
  action: StickyCommentOutcome["action"],
  comment: { id: number; html_url: string },
  deleted: number[],
  reason: string,
): StickyCommentOutcome {
  return {
    action,
    commentId: comment.id,
    url: comment.html_url,
    deleted,
    truncated: upsert.truncated,
    reason,
  };
}

/** Our comments on the pull request (our marker, our author), every page read, oldest first. */
async function markedComments({ client, settings }: Upsert): Promise<IssueComment[]> {
  const { owner, repo, pr, id, author } = settings;
  const all = await client.paginate(client.rest.issues.listComments, {
    owner,
    repo,
    issue_number: pr,
    per_page: 100,
  });
  return all
    .filter((c) => isMarked(c.body, id) && isOwnComment(c.user, author))
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id);
}

/** Updates the oldest of `ours` (unless one is for a newer head) and deletes the others. */
async function update(
  upsert: Upsert,
  ours: IssueComment[],
  alreadyDeleted: number[],
): Promise<StickyCommentOutcome> {
  const { client, settings, log } = upsert;
  const { owner, repo } = settings;
  const prHead = await pullRequestHead(upsert);
  const verdicts = ours.map((c) => decide(settings.head, parseHead(c.body, settings.id), prHead));
  const skip = verdicts.findIndex((v) => v.action === "skip");
  if (skip >= 0) return outcome(upsert, "skipped", ours[skip]!, alreadyDeleted, verdicts[skip]!.reason);

  const [keep, ...duplicates] = ours as [IssueComment, ...IssueComment[]];
  const deleted: number[] = [...alreadyDeleted];
  for (const dup of duplicates) {
    await client.rest.issues.deleteComment({ owner, repo, comment_id: dup.id });
    deleted.push(dup.id);
  }
  if (duplicates.length > 0)
    log(`removed ${duplicates.length} duplicate comment(s): ${duplicates.map((d) => d.id).join(", ")}`);
  const { data } = await client.rest.issues.updateComment({
    owner,
    repo,
    comment_id: keep.id,
    body: upsert.body,
  });
  return outcome(upsert, "updated", data, deleted, verdicts[0]!.reason);
}

/** The pull request's current head sha; undefined (and a note) when it cannot be read. */
async function pullRequestHead({ client, settings, log }: Upsert): Promise<string | undefined> {
  const { owner, repo, pr } = settings;
  try {
    const { data } = await client.rest.pulls.get({ owner, repo, pull_number: pr });
    return data.head.sha;
  } catch (err) {
    log(`cannot read pull request #${pr} (${(err as Error).message}): deciding on commit times alone`);
    return undefined;
  }
}
