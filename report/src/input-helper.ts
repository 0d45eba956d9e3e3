import { readFileSync } from "node:fs";
import * as core from "@actions/core";
import {
  httpUrl,
  isCommitSha,
  isMarkerId,
  isPullRequestNumber,
  MARKER_RULE,
  parseRepository,
} from "../../src/github/identifiers.js";
import type { Expected } from "../../src/comment/comment-runs.js";
import { DEFAULT_FLOOR_PCT } from "../../src/measures/counted/compare.js";
import { numberInput, PERCENTAGE, PROBABILITY, type NumberRule } from "../../src/util/inputs.js";

/** A count of shards: a whole number, 0 for no wall-clock results expected. */
const SHARD_COUNT: NumberRule = { ok: (x) => Number.isInteger(x) && x >= 0, what: "a whole number >= 0" };
import { withoutUndefined } from "../../src/util/objects.js";

/**
 * Every input of the report action, read once and checked; errors name the input. Values that
 * GitHub gives through the environment (repository, event payload, API URL) are read here too,
 * so the rest of the action takes a plain settings object.
 */
export interface ReportSettings {
  /** One results directory, or several (one per line): the shards of one run, merged. */
  results: string[];
  baseResults?: string;
  baselineProxy?: string;
  thresholdPct: number;
  /** Counted runs: smallest % change in instructions per request that counts. */
  floorPct: number;
  alpha: number;
  failOnRegression: boolean;
  comment: boolean;
  summary: boolean;
  marker: string;
  token?: string;
  apiUrl: string;
  owner: string;
  repo: string;
  /**
   * From the input, else the event (a workflow_run's pull request only when it is one of this
   * repository's); undefined: looked up by the head (branch and commit), or no comment.
   */
  pr?: number;
  headSha?: string;
  /** The branch the head commit was pushed to, from the event: a fork's branch for a fork. */
  headBranch?: HeadBranch;
  /**
   * The event is a workflow_run: a pull request number (the input's or the event's) is used only
   * if that pull request's head is `headBranch`.
   */
  checkPr?: boolean;
  detailsUrl?: string;
  /** Name of the runner that measured (the comment's "Measured on"); else results' host name. */
  runnerName?: string;
  /** Links under the job summary. */
  artifactUrl?: string;
  chartUrl?: string;
  /** What the results should hold (expected-shards, jobs): what is not there makes it inconclusive. */
  expected?: Expected;
}

/** A head branch: the repository it lives in (owner/name, a fork's for a fork) and its name. */
export interface HeadBranch {
  repository: string;
  name: string;
}

/** A strict reader of one input. */
type Reader = (name: string) => string;

function number(read: Reader, name: string, rule: NumberRule): number {
  return numberInput(`input '${name}'`, read(name), rule);
}

function booleanInput(read: Reader, name: string): boolean {
  const text = read(name);
  if (["true", "True", "TRUE"].includes(text)) return true;
  if (["false", "False", "FALSE"].includes(text)) return false;
  throw new Error(`input '${name}': expected true or false, got '${text}'`);
}

/** A pull request as a workflow_run lists it: its base repository is named by API URL. */
interface RunPullRequest {
  number?: number;
  base?: { repo?: { url?: string } | null };
}

interface EventPayload {
  pull_request?: {
    number?: number;
    head?: { sha?: string; ref?: string; repo?: { full_name?: string } | null };
  };
  workflow_run?: {
    head_sha?: string;
    head_branch?: string | null;
    head_repository?: { full_name?: string } | null;
    pull_requests?: RunPullRequest[];
  };
}

/** The event payload GitHub wrote to GITHUB_EVENT_PATH ({} when there is none). */
function readEvent(env: NodeJS.ProcessEnv): EventPayload {
  const file = env.GITHUB_EVENT_PATH;
  if (!file) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8")) as EventPayload;
  } catch (err) {
    throw new Error(`GITHUB_EVENT_PATH ${file}: cannot read the event payload (${(err as Error).message})`);
  }
}

/** An optional http(s) URL input. */
function urlInput(read: Reader, name: string): string | undefined {
  const url = read(name) || undefined;
  if (url !== undefined && httpUrl(url) === undefined) {
    throw new Error(`input '${name}': expected an http(s) URL, got '${url}'`);
  }
  return url;
}

/**
 * The address of the history chart that `proxybench publish` writes to `dir` of the gh-pages
 * branch: <owner>.github.io/<repo>/<dir>/ on github.com (the root for a <owner>.github.io
 * repository), <server>/pages/<owner>/<repo>/<dir>/ on GitHub Enterprise Server (pure).
 */
export function pagesUrl(serverUrl: string, owner: string, repo: string, dir: string): string {
  const folder = dir.replace(/^\/+|\/+$/g, "");
  const tail = folder === "" ? "" : `${folder}/`;
  const server = serverUrl.replace(/\/+$/, "");
  if (server === "https://github.com") {
    const site = `https://${owner.toLowerCase()}.github.io`;
    return repo.toLowerCase() === `${owner.toLowerCase()}.github.io`
      ? `${site}/${tail}`
      : `${site}/${repo}/${tail}`;
  }
  return `${server}/pages/${owner}/${repo}/${tail}`;
}

/** The links of the summary: runner name, results artifact, history chart. */
function linkSettings(
  read: Reader,
  env: NodeJS.ProcessEnv,
  owner: string,
  repo: string,
): Pick<ReportSettings, "runnerName" | "artifactUrl" | "chartUrl"> {
  const runnerName = read("runner-name") || undefined;
  const artifactUrl = urlInput(read, "artifact-url");
  const pagesDir = read("gh-pages-dir");
  const chartUrl =
    urlInput(read, "chart-url") ??
    (pagesDir !== ""
      ? pagesUrl(env.GITHUB_SERVER_URL || "https://github.com", owner, repo, pagesDir)
      : undefined);
  return withoutUndefined({ runnerName, artifactUrl, chartUrl });
}

/**
 * The pull request a workflow_run names, when exactly one of its list is this repository's: the
 * list also holds pull requests of other repositories (a fork's own, whose head is the same
 * branch), whose numbers mean other pull requests here.
 */
function runPullRequest(
  pulls: RunPullRequest[] | undefined,
  owner: string,
  repo: string,
): number | undefined {
  const here = `/repos/${owner}/${repo}`.toLowerCase();
  const ours = (pulls ?? []).filter((p) => {
    const url = p.base?.repo?.url;
    return typeof url === "string" && url.toLowerCase().endsWith(here);
  });
  return ours.length === 1 ? ours[0]!.number : undefined;
}

/** The head branch of the event: a pull request's head, or the branch a workflow_run ran on. */
function eventHeadBranch(event: EventPayload): HeadBranch | undefined {
  const run = event.workflow_run;
  const head = run
    ? { repository: run.head_repository?.full_name, name: run.head_branch }
    : { repository: event.pull_request?.head?.repo?.full_name, name: event.pull_request?.head?.ref };
  return head.repository && head.name ? { repository: head.repository, name: head.name } : undefined;
}

/** The pull request and head commit: the inputs, else the triggering event's. */
function pullRequestInputs(
  read: Reader,
  event: EventPayload,
  here: { owner: string; repo: string },
): Pick<ReportSettings, "pr" | "headSha" | "headBranch" | "checkPr"> {
  let pr: number | undefined;
  const prText = read("pr-number");
  if (prText !== "") {
    pr = Number(prText);
    if (!isPullRequestNumber(pr))
      throw new Error(`input 'pr-number': expected a pull request number, got '${prText}'`);
  } else {
    pr =
      event.pull_request?.number ?? runPullRequest(event.workflow_run?.pull_requests, here.owner, here.repo);
  }
  const headSha =
    read("head-sha") || event.pull_request?.head?.sha || event.workflow_run?.head_sha || undefined;
  if (headSha !== undefined && !isCommitSha(headSha)) {
    throw new Error(`input 'head-sha': expected a hexadecimal commit sha, got '${headSha}'`);
  }
  const checkPr = event.workflow_run !== undefined ? true : undefined;
  return withoutUndefined({ pr, headSha, headBranch: eventHeadBranch(event), checkPr });
}

/** The input `details-url`, else this workflow run's page. */
function detailsUrlInput(read: Reader, env: NodeJS.ProcessEnv): string | undefined {
  const detailsUrl = urlInput(read, "details-url");
  if (detailsUrl === undefined && env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID) {
    return `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  }
  return detailsUrl;
}

/** How a job can end, as GitHub's `needs.<job>.result` says it. */
const JOB_RESULTS = ["success", "failure", "cancelled", "skipped"];

/** The input `jobs`: `${{ toJSON(needs) }}`, each job's `result` kept. */
function jobsInput(text: string): Record<string, string> | undefined {
  if (text === "") return undefined;
  const shape = "expected the jobs' results as `${{ toJSON(needs) }}` gives them";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`input 'jobs': ${shape}, got '${text}'`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error(`input 'jobs': ${shape} (an object of jobs), got '${text}'`);
  const jobs: Record<string, string> = {};
  for (const [job, value] of Object.entries(parsed)) {
    const result = (value as { result?: unknown } | null)?.result;
    if (typeof result !== "string" || !JOB_RESULTS.includes(result))
      throw new Error(
        `input 'jobs': job '${job}': expected a result of ${JOB_RESULTS.join(", ")}, got ${JSON.stringify(result) ?? "none"}`,
      );
    jobs[job] = result;
  }
  return jobs;
}

/** The inputs that say what the results should hold. */
function expectedInputs(read: Reader): Pick<ReportSettings, "expected"> {
  const shardsText = read("expected-shards");
  const shards =
    shardsText === "" ? undefined : numberInput("input 'expected-shards'", shardsText, SHARD_COUNT);
  const jobs = jobsInput(read("jobs"));
  const expected = withoutUndefined({ shards, jobs });
  return Object.keys(expected).length > 0 ? { expected } : {};
}

/** Reads and validates every input (pure apart from `read` and `env`). */
export function getSettings(
  read: Reader = (name) => core.getInput(name).trim(),
  env: NodeJS.ProcessEnv = process.env,
): ReportSettings {
  const results = read("results")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (results.length === 0) throw new Error("input 'results': required (the head's results directory)");

  const repository = read("repository") || env.GITHUB_REPOSITORY || "";
  const ownerRepo = parseRepository(repository);
  if (!ownerRepo) {
    throw new Error(
      `input 'repository': expected owner/name, got '${repository}' (nor is GITHUB_REPOSITORY set)`,
    );
  }

  const marker = read("marker") || "proxybench";
  if (!isMarkerId(marker)) {
    throw new Error(`input 'marker': ${MARKER_RULE}, got '${marker}'`);
  }

  const pullRequest = pullRequestInputs(read, readEvent(env), ownerRepo);
  const detailsUrl = detailsUrlInput(read, env);

  const comment = booleanInput(read, "comment");
  const token = read("token") || undefined;
  if (comment && token === undefined) {
    throw new Error(
      "input 'token': required to comment (a token with pull-requests: write), or set comment: false",
    );
  }

  return {
    results,
    baseResults: read("base-results") || undefined,
    baselineProxy: read("baseline-proxy") || undefined,
    thresholdPct: number(read, "threshold", PERCENTAGE),
    floorPct: read("floor") === "" ? DEFAULT_FLOOR_PCT : number(read, "floor", PERCENTAGE),
    alpha: number(read, "alpha", PROBABILITY),
    failOnRegression: booleanInput(read, "fail-on-regression"),
    comment,
    summary: booleanInput(read, "summary"),
    marker,
    token,
    apiUrl: env.GITHUB_API_URL || "https://api.github.com",
    owner: ownerRepo.owner,
    repo: ownerRepo.repo,
    ...pullRequest,
    ...withoutUndefined({ detailsUrl }),
    ...linkSettings(read, env, ownerRepo.owner, ownerRepo.repo),
    ...expectedInputs(read),
  };
}
