import type { GitHubClient } from "../../src/github/client.js";
import type { HeadBranch, ReportSettings } from "./input-helper.js";

/**
 * The pull request a report is for. A commit says nothing about whose it is: a fork can push the
 * commit at the head of someone else's pull request, and its own run then carries that commit. So
 * a pull request is known by its head branch (repository and name) and commit together, and is
 * never guessed: two that match, or a number that names another head, give no comment.
 */

/** A pull request found, or why there is none: `refused` is a warning, `none` a plain note. */
export type PullRequestMatch = { pr: number } | { none: string } | { refused: string };

type Query = Pick<ReportSettings, "owner" | "repo" | "pr" | "headSha" | "headBranch" | "checkPr">;

interface PullHead {
  ref: string;
  sha: string;
  repo?: { full_name?: string } | null;
}

function describeHead(head: PullHead): string {
  return `${head.repo?.full_name ?? "(a deleted repository)"}:${head.ref}`;
}

function isOnBranch(head: PullHead, branch: HeadBranch): boolean {
  const repository = head.repo?.full_name;
  return (
    repository !== undefined &&
    repository.toLowerCase() === branch.repository.toLowerCase() &&
    head.ref === branch.name
  );
}

/** A number given with a workflow_run: used only when that pull request's head is the run's branch. */
async function checkGiven(client: GitHubClient, query: Query, pr: number): Promise<PullRequestMatch> {
  const branch = query.headBranch;
  if (branch === undefined)
    return { refused: `pull request #${pr}: the event names no head branch to check it against` };
  let head: PullHead;
  try {
    head = (await client.rest.pulls.get({ owner: query.owner, repo: query.repo, pull_number: pr })).data.head;
  } catch (err) {
    if ((err as { status?: unknown }).status !== 404) throw err;
    return { refused: `pull request #${pr} is not one of ${query.owner}/${query.repo}'s` };
  }
  if (isOnBranch(head, branch)) return { pr };
  return {
    refused: `pull request #${pr} has the head ${describeHead(head)}, this run's is ${branch.repository}:${branch.name}`,
  };
}

/** The open pull requests whose head is the branch and the commit. */
async function lookUp(client: GitHubClient, query: Query): Promise<PullRequestMatch> {
  const { headSha, headBranch } = query;
  if (headSha === undefined) return { none: "the event names no pull request and no head commit" };
  if (headBranch === undefined) {
    return {
      refused: `the event names no head branch: a pull request is not looked up by its commit ${headSha} alone`,
    };
  }
  const open = await client.paginate(client.rest.pulls.list, {
    owner: query.owner,
    repo: query.repo,
    state: "open",
    per_page: 100,
  });
  const sha = headSha.toLowerCase();
  const matches = open.filter((p) => p.head.sha.toLowerCase() === sha && isOnBranch(p.head, headBranch));
  const head = `${headBranch.repository}:${headBranch.name} at ${headSha}`;
  if (matches.length === 1) return { pr: matches[0]!.number };
  if (matches.length === 0) return { none: `no open pull request has the head ${head}` };
  return {
    refused: `${matches.length} open pull requests have the head ${head} (${matches.map((p) => `#${p.number}`).join(", ")}): not guessing which`,
  };
}

/**
 * The pull request of a report: the one given (the input, or the event's), checked against the
 * run's head branch when the event is a workflow_run; else the one open pull request whose head
 * is the event's branch and commit (a fork's workflow_run carries no pull request).
 */
export async function findPullRequest(client: GitHubClient, query: Query): Promise<PullRequestMatch> {
  if (query.pr === undefined) return lookUp(client, query);
  return query.checkPr ? checkGiven(client, query, query.pr) : { pr: query.pr };
}
