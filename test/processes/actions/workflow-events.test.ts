import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { evaluate, interpolate, type Context } from "../../support/actions/expressions.js";
import { runReportAction } from "../../support/actions/report-action.js";
import {
  BASE_CONTEXT_EVENTS,
  calledInputs,
  OTHER_EVENTS,
  pullRequestEvent,
  readWorkflow,
  REPOSITORY,
  runContexts,
  runJob,
  type EventRun,
  type JobRun,
} from "../../support/actions/workflow-run.js";
import { startGitHubServer, type GitHubServer } from "../../support/github-server.js";
import { cell, countedRun, results } from "../../support/report/build.js";

/**
 * The workflows' decisions for each kind of event, evaluated as GitHub evaluates them (the
 * contexts it gives the run, each job's `if:`, `env:` and outputs, each step's `with:`, the
 * github-script steps run for real), not read as text: which jobs run, which refuse and why,
 * which label approves and which is removed, what the report action is given.
 */

const BENCH = readWorkflow(".github/workflows/bench.yml");
const CALLER = readWorkflow("workflows/pr-benchmark.yml");
const INSTRUCTIONS = readWorkflow(".github/workflows/bench-instructions.yml");
const FORK_BENCHMARK = readWorkflow("workflows/fork-benchmark.yml");
const FORK_COMMENT = readWorkflow("workflows/fork-comment.yml");
const LABEL_RESETS = [".github/workflows/bench-label-reset.yml", "workflows/label-reset.yml"];

/** The job context GitHub gives the jobs of a called workflow: its own repository and commit. */
const CALLED_JOB = {
  status: "success",
  workflow_repository: "org/proxybench",
  workflow_sha: "1234567890abcdef1234567890abcdef12345678",
};

/** The contexts of bench.yml's jobs, called as workflows/pr-benchmark.yml calls it, for one event. */
function benchContexts(
  run: EventRun,
  vars: Record<string, string> = {},
  edits: Record<string, string> = {},
): Context {
  const caller = runContexts(run, vars);
  const withValues = { ...CALLER.jobs.bench?.with, ...edits };
  return { ...caller, ...calledInputs(BENCH, withValues, caller), job: CALLED_JOB, matrix: { shard: 1 } };
}

/** bench.yml's plan, benchmark and count jobs for one event (the caller's `with:` changed by `edits`). */
async function benchRun(
  run: EventRun,
  vars: Record<string, string> = {},
  edits: Record<string, string> = {},
) {
  const context = benchContexts(run, vars, edits);
  const plan = await runJob(BENCH.jobs["detect-env"]!, context);
  const bench = await runJob(BENCH.jobs.bench!, context, { "detect-env": plan });
  const count = await runJob(BENCH.jobs.count!, context, { "detect-env": plan });
  return { plan, bench, count };
}

const fork = (action: string, label?: string) =>
  pullRequestEvent({ fork: true, action, ...(label !== undefined ? { label } : {}) });
const sameRepository = (action: string, label?: string) =>
  pullRequestEvent({ fork: false, action, ...(label !== undefined ? { label } : {}) });

describe("GitHub's expressions, as these tests evaluate them", () => {
  const context: Context = {
    github: { event: { label: { name: "Safe-To-Bench" }, pull_request: null }, run_id: "7" },
    vars: {},
    needs: { a: { result: "success", outputs: { n: "2" } } },
  };
  it.each<[string, unknown]>([
    ["github.event.label.name == 'safe-to-bench'", true],
    ["vars.PROXYBENCH_APPROVAL_LABEL || 'safe-to-bench'", "safe-to-bench"],
    ["!github.event.pull_request", true],
    ["github.event.pull_request.head.repo.full_name", null],
    ["github.event.label && 'yes' || 'no'", "yes"],
    ["format('run-{0}-{1}', github.run_id, 1)", "run-7-1"],
    ["needs.a.outputs.n > 1", true],
    ["contains(fromJSON('[\"x\",\"y\"]'), 'Y')", true],
    ["toJSON(needs)", JSON.stringify({ a: { result: "success", outputs: { n: "2" } } }, null, 2)],
  ])("%s", (expression, expected) => {
    expect(evaluate(expression, context)).toEqual(expected);
  });

  it("fills in the parts of a text, and takes a whole expression's value as it is", () => {
    expect(interpolate("pr-${{ github.run_id }}-x", context)).toBe("pr-7-x");
    expect(interpolate("${{ needs.a.outputs.n == '2' }}", context)).toBe(true);
  });
});

describe("bench.yml: which events benchmark", () => {
  const events: Array<[EventRun, boolean]> = [
    ...OTHER_EVENTS.map((e): [EventRun, boolean] => [e, true]),
    [sameRepository("opened"), true],
    [sameRepository("synchronize"), true],
    [sameRepository("labeled", "safe-to-bench"), true],
    [sameRepository("labeled", "bug"), false],
    [fork("opened"), false],
    [fork("synchronize"), false],
    [fork("labeled", "safe-to-bench"), true],
    [fork("labeled", "bug"), false],
  ];

  it.each(events.map(([e, runs]) => [e.label, runs, e] as const))(
    "%s: benchmarks and counts: %s",
    async (_, runs, event) => {
      const { plan, bench, count } = await benchRun(event);
      expect(plan.error).toBeUndefined();
      expect(bench.ran).toBe(runs);
      expect(count.ran).toBe(runs);
    },
  );

  it.each(BASE_CONTEXT_EVENTS.map((e) => [e.label, e] as const))(
    "refuses %s, saying why, before any runner is taken",
    async (_, event) => {
      const { plan, bench, count } = await benchRun(event);
      expect(plan.error).toMatch(
        new RegExp(
          `^bench\\.yml does not run on ${event.eventName}: it runs in the default branch's context`,
        ),
      );
      expect(bench.ran).toBe(false);
      expect(count.ran).toBe(false);
    },
  );
});

describe("the approval label: the same one starts a fork's run and is removed on its next push", () => {
  const CANDIDATES = ["safe-to-bench", "perf-ok", "bug"];

  /** The label the label-reset workflow removes from a pull request that carries `label`, if any. */
  async function removedBy(file: string, label: string, vars: Record<string, string>) {
    const event = pullRequestEvent({ fork: true, action: "synchronize", labels: [label], target: true });
    const job = await runJob(readWorkflow(file).jobs.unlabel!, runContexts(event, vars));
    const call = job.calls.find((c) => c.method === "rest.issues.removeLabel");
    return (call?.params as { name?: string } | undefined)?.name;
  }

  it.each([
    ["no repository variable", {}],
    ["the repository variable PROXYBENCH_APPROVAL_LABEL set", { PROXYBENCH_APPROVAL_LABEL: "perf-ok" }],
  ])(
    "the label that starts a fork's run is the label label-reset removes, with %s",
    async (_, vars: Record<string, string>) => {
      const approving: string[] = [];
      for (const label of CANDIDATES) {
        const event = fork("labeled", label);
        const { bench } = await benchRun(event, vars);
        // The fork-safe caller decides as bench.yml does.
        const forkJob = await runJob(FORK_BENCHMARK.jobs.bench!, runContexts(event, vars));
        expect(forkJob.ran, `fork-benchmark.yml, ${label}`).toBe(bench.ran);
        if (bench.ran) approving.push(label);
      }
      expect(approving).toHaveLength(1);
      for (const file of LABEL_RESETS) {
        const removed = [];
        for (const label of CANDIDATES) removed.push(await removedBy(file, label, vars));
        expect(
          removed.filter((r) => r !== undefined),
          file,
        ).toEqual(approving);
      }
    },
  );

  it("a fork's edited caller that names its own label (approval-label: bug) is not approved by it", async () => {
    const edited = { "approval-label": "bug" };
    const { plan, bench } = await benchRun(fork("labeled", "bug"), {}, edited);
    expect(bench.ran).toBe(false);
    expect(plan.warnings).toContainEqual(expect.stringMatching(/^input 'approval-label' is ignored/));
    expect((await benchRun(fork("labeled", "safe-to-bench"), {}, edited)).bench.ran).toBe(true);
  });

  it("a repository that set the variable is told it is not read (a fork's run could not read it)", async () => {
    const vars = { PROXYBENCH_APPROVAL_LABEL: "perf-ok" };
    const { plan } = await benchRun(sameRepository("opened"), vars);
    expect(plan.warnings).toContainEqual(
      expect.stringMatching(/^the repository variable PROXYBENCH_APPROVAL_LABEL \(perf-ok\) is not read/),
    );
    expect((await benchRun(sameRepository("opened"))).plan.warnings).toEqual([]);
  });
});

describe("bench-instructions.yml", () => {
  /** Its one job for an event, called with `withValues`, under a job context (GitHub Enterprise Server: none). */
  function countJob(event: EventRun, withValues: Record<string, unknown> = {}, job: object = CALLED_JOB) {
    const caller = runContexts(event, {});
    return runJob(INSTRUCTIONS.jobs.count!, {
      ...caller,
      ...calledInputs(INSTRUCTIONS, withValues, caller),
      job: job as Context[string],
    });
  }
  const proxybenchCheckout = (job: JobRun) => job.steps["Check out proxybench"];

  it("checks out the proxybench of its own uses: (the job context), never the caller's repository", async () => {
    const job = await countJob(fork("opened"));
    expect(job.error).toBeUndefined();
    expect(proxybenchCheckout(job)).toMatchObject({
      repository: CALLED_JOB.workflow_repository,
      ref: CALLED_JOB.workflow_sha,
    });
    // Without a job context (GitHub Enterprise Server), the inputs name it, else the job stops.
    const named = await countJob(
      fork("opened"),
      { "proxybench-repository": "org/proxybench", "proxybench-ref": CALLED_JOB.workflow_sha },
      { status: "success" },
    );
    expect(proxybenchCheckout(named)).toMatchObject({ repository: "org/proxybench" });
    const unnamed = await countJob(fork("opened"), {}, { status: "success" });
    expect(unnamed.error).toMatch(/set the inputs proxybench-repository and proxybench-ref/);
    expect(proxybenchCheckout(unnamed)).toBeUndefined();
  });

  it.each(BASE_CONTEXT_EVENTS.map((e) => [e.label, e] as const))(
    "refuses %s before checking anything out",
    async (_, event) => {
      const job = await countJob(event);
      expect(job.error).toMatch(
        new RegExp(
          `^bench-instructions\\.yml does not run on ${event.eventName}: it runs in the default branch's context`,
        ),
      );
      expect(Object.keys(job.steps).filter((s) => s.startsWith("Check out"))).toEqual([]);
    },
  );
});

describe("the report action as the workflows call it", () => {
  let server: GitHubServer;
  let dir: string;
  beforeAll(async () => {
    server = await startGitHubServer();
    dir = await mkdtemp(path.join(tmpdir(), "pb-workflow-events-"));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("fork-comment.yml comments on this repository's pull request when the run lists another repository's first", async () => {
    const sha = "e4".repeat(20);
    // The branch has a pull request here (#7) and one in the repository it was forked from (#3,
    // listed first); #3 here is someone else's.
    server.addPull(REPOSITORY, {
      number: 3,
      sha: "f3".repeat(20),
      ref: "other",
      headRepo: "someone/gateway",
    });
    server.addPull(REPOSITORY, { number: 7, sha, ref: "feature", headRepo: REPOSITORY });
    const listed = (number: number, repo: string) => ({
      number,
      head: { ref: "feature", sha, repo: { url: `https://api.github.com/repos/${REPOSITORY}` } },
      base: { ref: "main", sha, repo: { url: `https://api.github.com/repos/${repo}` } },
    });
    const payload = {
      action: "completed",
      repository: { full_name: REPOSITORY },
      workflow_run: {
        name: "proxybench benchmark",
        event: "pull_request",
        conclusion: "success",
        id: 99,
        html_url: `https://github.com/${REPOSITORY}/actions/runs/99`,
        head_sha: sha,
        head_branch: "feature",
        head_repository: { full_name: REPOSITORY },
        pull_requests: [listed(3, "upstream/gateway"), listed(7, REPOSITORY)],
      },
    };
    const event: EventRun = {
      label: "workflow_run",
      eventName: "workflow_run",
      payload,
      fromFork: false,
      ref: "refs/heads/main",
      sha: "9".repeat(40),
    };
    const job = await runJob(FORK_COMMENT.jobs.comment!, runContexts(event, {}));
    expect(job.ran).toBe(true);
    const inputs = job.steps["Compare and comment"]!;
    // The downloaded artifact (a run holding base and head) in the folder the step names.
    const rounds = Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: 5 * (1 + i / 100) }));
    const artifact = results([
      cell("nginx", rounds, { variant: "base" }),
      cell("nginx", rounds, { variant: "head" }),
    ]);
    artifact.settings.variants = [
      { name: "base", dir: "/w/base" },
      { name: "head", dir: "/w/head" },
    ];
    const downloaded = path.join(dir, inputs.results!);
    await mkdir(downloaded, { recursive: true });
    await writeFile(path.join(downloaded, "results.json"), JSON.stringify(artifact));
    const run = await runReportAction(
      { dir, apiUrl: server.url, repository: REPOSITORY },
      { ...inputs, results: downloaded, token: server.token },
      payload,
      "fork-comment",
    );
    expect(run.stdout).not.toMatch(/::(warning|error)::/);
    expect(server.comments(REPOSITORY, 7)).toHaveLength(1);
    expect(server.comments(REPOSITORY, 3)).toEqual([]);
  });

  it("bench.yml's report after a failed benchmark job: told what to expect, inconclusive, never unchanged", async () => {
    const context = benchContexts(sameRepository("synchronize"));
    const plan = await runJob(BENCH.jobs["detect-env"]!, context);
    const bench: JobRun = { ...plan, outputs: {}, error: "the benchmark step failed" };
    const count = await runJob(BENCH.jobs.count!, context, { "detect-env": plan });
    const report = await runJob(BENCH.jobs.report!, context, { "detect-env": plan, bench, count });
    expect(report.ran).toBe(true);
    // The pattern download found no shard (and did not fail); the counted run is there.
    const downloads = path.join(dir, "bench-report");
    await mkdir(path.join(downloads, "proxybench-instructions"), { recursive: true });
    const same = [41_000, 41_010, 41_005];
    await writeFile(
      path.join(downloads, "proxybench-instructions", "instructions.json"),
      JSON.stringify(countedRun({ base: same, head: same })),
    );
    expect(report.steps["Download the counted results"]).toBeDefined();
    const inputs = report.steps.report!;
    const run = await runReportAction(
      { dir, apiUrl: server.url, repository: REPOSITORY },
      { ...inputs, results: downloads, comment: "false", "fail-on-regression": "true" },
      (context.github as { event: object }).event,
      "failed-bench",
    );
    expect(run.outputs.verdict).toBe("inconclusive");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("the job bench failed; no wall-clock results (1 shard expected)");
  });
});
