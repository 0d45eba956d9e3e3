import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { asText, condition, interpolate, type Context, type Value } from "./expressions.js";

/**
 * A workflow's jobs run as GitHub runs them for one event, as far as their decisions go: the
 * contexts GitHub gives the run (no configuration variables for a fork's pull_request run), a
 * job's `if:`, its `env:` and `outputs:`, a step's `env:` and `with:`, and actions/github-script
 * steps run for real. Nothing is checked out or built: what is tested is which jobs run, what
 * they are given and what they decide.
 */

interface WorkflowStep {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

export interface WorkflowJob {
  if?: string;
  uses?: string;
  needs?: string | string[];
  env?: Record<string, string>;
  outputs?: Record<string, string>;
  with?: Record<string, unknown>;
  steps?: WorkflowStep[];
}

export interface Workflow {
  on: unknown;
  concurrency?: { group: string } | string;
  jobs: Record<string, WorkflowJob>;
}

export function readWorkflow(file: string): Workflow {
  return parseYaml(readFileSync(path.join(PROJECT_ROOT, file), "utf8")) as Workflow;
}

/** The repository the events happen in, its default branch, and a fork of it. */
export const REPOSITORY = "octo/gateway";
const FORK = "mallory/gateway";

/** One event as a workflow sees it. */
export interface EventRun {
  /** How a test names it. */
  label: string;
  eventName: string;
  payload: Record<string, Value>;
  /** A run triggered from a fork: a pull_request run of a fork's pull request. */
  fromFork: boolean;
  ref: string;
  sha: string;
}

const HEAD_SHA = "c0ffee".padEnd(40, "0");
const BASE_SHA = "ba5e".padEnd(40, "0");
const MAIN_SHA = "ma1n".replace("n", "0").padEnd(40, "1");

/** A pull request of this repository's or of the fork's branch. */
function pullRequest(fork: boolean, labels: readonly string[]): Record<string, Value> {
  return {
    number: 7,
    labels: labels.map((name) => ({ name })),
    head: { sha: HEAD_SHA, ref: "feature", repo: { full_name: fork ? FORK : REPOSITORY } },
    base: { sha: BASE_SHA, ref: "main", repo: { full_name: REPOSITORY } },
  };
}

const repository: Record<string, Value> = { full_name: REPOSITORY, default_branch: "main" };

/** A `pull_request` (or `pull_request_target`) event: `labeled` with the label applied, if given. */
export function pullRequestEvent(options: {
  fork: boolean;
  action: string;
  label?: string;
  labels?: string[];
  target?: boolean;
}): EventRun {
  const labels = options.labels ?? (options.label !== undefined ? [options.label] : []);
  const eventName = options.target ? "pull_request_target" : "pull_request";
  const payload: Record<string, Value> = {
    action: options.action,
    number: 7,
    pull_request: pullRequest(options.fork, labels),
    repository,
    ...(options.label !== undefined ? { label: { name: options.label } } : {}),
  };
  const who = options.fork ? "a fork's" : "a same-repository";
  return {
    label: `${eventName} ${options.action}${options.label ? ` ${options.label}` : ""} (${who} pull request)`,
    eventName,
    payload,
    fromFork: options.fork && !options.target,
    ref: options.target ? "refs/heads/main" : "refs/pull/7/merge",
    sha: options.target ? MAIN_SHA : HEAD_SHA,
  };
}

/** Events of the default branch, and those that run in its context for a pull request's sake. */
export const OTHER_EVENTS: EventRun[] = [
  {
    label: "push to main",
    eventName: "push",
    payload: { repository },
    fromFork: false,
    ref: "refs/heads/main",
    sha: MAIN_SHA,
  },
  {
    label: "schedule",
    eventName: "schedule",
    payload: { schedule: "17 3 * * *" },
    fromFork: false,
    ref: "refs/heads/main",
    sha: MAIN_SHA,
  },
  {
    label: "workflow_dispatch",
    eventName: "workflow_dispatch",
    payload: { repository, inputs: {} },
    fromFork: false,
    ref: "refs/heads/main",
    sha: MAIN_SHA,
  },
];

/** Events that run with the default branch's context (its token, caches, variables), not the pull request's. */
export const BASE_CONTEXT_EVENTS: EventRun[] = [
  pullRequestEvent({ fork: true, action: "labeled", label: "safe-to-bench", target: true }),
  {
    label: "workflow_run after a fork's pull request",
    eventName: "workflow_run",
    payload: {
      action: "completed",
      repository,
      workflow_run: {
        event: "pull_request",
        conclusion: "success",
        head_sha: HEAD_SHA,
        head_branch: "feature",
        head_repository: { full_name: FORK },
        pull_requests: [],
      },
    },
    fromFork: false,
    ref: "refs/heads/main",
    sha: MAIN_SHA,
  },
  {
    label: "issue_comment on a fork's pull request",
    eventName: "issue_comment",
    payload: {
      action: "created",
      repository,
      issue: { number: 7, pull_request: { url: `https://api.github.com/repos/${REPOSITORY}/pulls/7` } },
      comment: { body: "/bench" },
    },
    fromFork: false,
    ref: "refs/heads/main",
    sha: MAIN_SHA,
  },
];

/**
 * The contexts GitHub gives a run of this event. A fork's pull_request run gets no configuration
 * variables (nor secrets): `vars` is empty there, whatever the repository set.
 */
export function runContexts(run: EventRun, repositoryVars: Record<string, string>): Context {
  return {
    github: {
      event_name: run.eventName,
      event: run.payload,
      repository: REPOSITORY,
      repository_owner: REPOSITORY.split("/")[0]!,
      ref: run.ref,
      sha: run.sha,
      run_id: "4242",
      run_attempt: "1",
      actor: "someone",
      server_url: "https://github.com",
      token: "ghs_run-token",
      workspace: "/home/runner/work/gateway/gateway",
    },
    vars: run.fromFork ? {} : repositoryVars,
    env: {},
    runner: { temp: "/home/runner/work/_temp", name: "runner-1" },
  };
}

/** What an actions/github-script step did: its outputs, messages, API calls, and the error that failed it. */
interface ScriptRun {
  outputs: Record<string, string>;
  warnings: string[];
  notices: string[];
  /** Each call to the `github` client, e.g. `rest.issues.removeLabel` with its parameters. */
  calls: Array<{ method: string; params: unknown }>;
  error?: string;
}

/** An Octokit stand-in that records every call made through it and answers with no data. */
function recordingClient(calls: ScriptRun["calls"], at: string[] = []): unknown {
  return new Proxy(() => undefined, {
    get: (_, key) => recordingClient(calls, [...at, String(key)]),
    apply: (_, __, args: unknown[]) => {
      calls.push({ method: at.join("."), params: args[0] });
      return Promise.resolve({ data: {} });
    },
  });
}

/**
 * An actions/github-script step's script, run as the action runs it: an async function of `core`,
 * `github` (a client that records its calls), `context` (the event's payload and repository) and
 * `process`.
 */
export async function runGithubScript(
  script: string,
  env: Record<string, string>,
  event: { payload?: Value; repository?: string } = {},
): Promise<ScriptRun> {
  const run: ScriptRun = { outputs: {}, warnings: [], notices: [], calls: [] };
  const core = {
    setOutput: (name: string, value: unknown) => (run.outputs[name] = String(value)),
    info: () => undefined,
    notice: (message: string) => run.notices.push(message),
    warning: (message: string) => run.warnings.push(message),
  };
  const [owner = "", repo = ""] = (event.repository ?? REPOSITORY).split("/");
  const context = { payload: event.payload ?? {}, repo: { owner, repo } };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the workflow's own script, as github-script runs it
  const body = new Function(
    "core",
    "github",
    "context",
    "process",
    `return (async () => {\n${script}\n})();`,
  ) as (c: typeof core, g: unknown, x: typeof context, p: { env: Record<string, string> }) => Promise<void>;
  try {
    await body(core, recordingClient(run.calls), context, { env });
  } catch (err) {
    run.error = (err as Error).message;
  }
  return run;
}

/** Every value of a map evaluated as the runner does, as text (what `env:` and `outputs:` hold). */
function evaluateAll(values: Record<string, unknown> | undefined, context: Context): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values ?? {}).map(([k, v]) => [
      k,
      asText(typeof v === "string" ? interpolate(v, context) : (v as Value)),
    ]),
  );
}

/** How one job went: whether its `if:` let it run, whether its steps got through, and its outputs. */
export interface JobRun {
  ran: boolean;
  /** The first github-script step that failed, and why. */
  error?: string;
  warnings: string[];
  outputs: Record<string, string>;
  /** Each step that ran, by id or name, with its `with:` evaluated. */
  steps: Record<string, Record<string, string>>;
  /** The API calls its github-script steps made. */
  calls: ScriptRun["calls"];
}

/**
 * A job run for one event: its `if:` (with `needs`), its env, then each step whose `if:` holds
 * (github-script steps run, others only have their `with:` evaluated), then its outputs.
 */
export async function runJob(
  job: WorkflowJob,
  contexts: Context,
  needs: Record<string, JobRun> = {},
): Promise<JobRun> {
  const result: JobRun = { ran: false, warnings: [], outputs: {}, steps: {}, calls: [] };
  const context: Context = { ...contexts, needs: needsOf(needs) };
  // A job whose needed jobs did not all succeed runs only when its `if:` calls a status function.
  const status = { failure: Object.values(needs).some((n) => !n.ran || n.error !== undefined) };
  if (!condition(job.if, context, status)) return result;
  result.ran = true;
  const env = evaluateAll(job.env, context);
  const stepsContext: Record<string, Value> = {};
  for (const step of job.steps ?? []) {
    const here: Context = { ...context, env, steps: stepsContext };
    if (!condition(step.if, here)) continue;
    const stepEnv = { ...env, ...evaluateAll(step.env, here) };
    const inputs = evaluateAll(step.with, { ...here, env: stepEnv });
    result.steps[step.id ?? step.name ?? step.uses ?? "step"] = inputs;
    if (!step.uses?.startsWith("actions/github-script@")) continue;
    const github = context.github as { event?: Value; repository?: string } | undefined;
    const script = await runGithubScript(inputs.script ?? "", stepEnv, {
      payload: github?.event ?? {},
      repository: github?.repository ?? REPOSITORY,
    });
    result.warnings.push(...script.warnings);
    result.calls.push(...script.calls);
    if (step.id !== undefined) stepsContext[step.id] = { outputs: script.outputs };
    if (script.error !== undefined) return { ...result, error: script.error };
  }
  result.outputs = evaluateAll(job.outputs, { ...context, env, steps: stepsContext });
  return result;
}

/** `needs` as a job sees it: each job's result and outputs. */
function needsOf(jobs: Record<string, JobRun>): Value {
  return Object.fromEntries(
    Object.entries(jobs).map(([id, run]) => [
      id,
      {
        result: !run.ran ? "skipped" : run.error !== undefined ? "failure" : "success",
        outputs: run.outputs,
      },
    ]),
  );
}

/**
 * The `inputs` a called workflow sees: its inputs' defaults (typed as declared), then the
 * caller's `with:` evaluated in the caller's contexts.
 */
export function calledInputs(
  called: Workflow,
  withValues: Record<string, unknown>,
  context: Context,
): Context {
  const declared = (called.on as { workflow_call: { inputs: Record<string, { default?: Value }> } })
    .workflow_call.inputs;
  const inputs: Record<string, Value> = {};
  for (const [name, spec] of Object.entries(declared)) inputs[name] = spec.default ?? "";
  for (const [name, value] of Object.entries(withValues))
    inputs[name] = typeof value === "string" ? interpolate(value, context) : (value as Value);
  return { inputs };
}
