import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  SECONDARY_RATE_LIMIT_MESSAGE,
  startGitHubServer,
  type GitHubServer,
} from "../../support/github-server.js";
import { actionYml, runReportAction } from "../../support/actions/report-action.js";
import { getSettings, pagesUrl } from "../../../report/src/input-helper.js";
import { findPullRequest } from "../../../report/src/pull-request.js";
import { createClient } from "../../../src/github/client.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { cell, countedRun, results as buildResults } from "../../support/report/build.js";
import { liveMarkup, visibleText } from "../../support/actions/gfm.js";

const FIXTURES = path.join(PROJECT_ROOT, "test", "fixtures", "actions");
const REPO = "octo/proxy-config";
const PR = 7;
const HEAD_SHA = "6d2ddce0741ce7f9f98fbbcd0dad55390364cf64";

let server: GitHubServer;
let dir: string;

beforeAll(async () => {
  server = await startGitHubServer();
  dir = await mkdtemp(path.join(tmpdir(), "pb-report-action-"));
});
afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const runAction = (withValues: Record<string, string>, event: unknown, name: string) =>
  runReportAction({ dir, apiUrl: server.url, repository: REPO }, withValues, event, name);

const prEvent = {
  action: "synchronize",
  number: PR,
  pull_request: {
    number: PR,
    head: { sha: HEAD_SHA, ref: "feature" },
    base: { sha: "b1083d3df9b4c72e0767d2bfc68eafc3e6b5794a" },
  },
  repository: { full_name: REPO },
};

describe("report action, bundled", () => {
  it("is a node24 action whose committed bundle is the build of report/src", async () => {
    expect(actionYml.runs).toEqual({ using: "node24", main: "dist/index.js" });
    expect(Object.keys(actionYml.outputs).sort()).toEqual(["comment-url", "regressions", "verdict"]);
    // The package's own build command, into a temporary file instead of report/dist/index.js.
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const script = pkg.scripts["build:action"] ?? "";
    expect(script).toContain("--outfile=report/dist/index.js");
    const rebuilt = path.join(dir, "index.js");
    const child = spawn(
      "sh",
      ["-c", script.replace("--outfile=report/dist/index.js", `--outfile=${rebuilt}`)],
      {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          PATH: `${path.join(PROJECT_ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let said = "";
    child.stderr.on("data", (c: Buffer) => (said += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(said).toBe("");
    expect(code).toBe(0);
    const committed = await readFile(path.join(PROJECT_ROOT, "report", "dist", "index.js"), "utf8");
    // Not toBe: a 1.7 MB diff would drown the message.
    expect(
      (await readFile(rebuilt, "utf8")) === committed,
      "report/dist/index.js is stale: run npm run build:action",
    ).toBe(true);
  });

  it("comments once on the pull request, updates that comment on the next run, writes the summary and the outputs", async () => {
    server.setPullHead(REPO, PR, HEAD_SHA);
    const inputs = {
      results: path.join(FIXTURES, "head"),
      "base-results": path.join(FIXTURES, "base"),
      token: server.token,
    };
    const first = await runAction(inputs, prEvent, "first");
    expect(first.stdout).not.toMatch(/::error::/);
    expect(first.code).toBe(0);

    const comments = server.comments(REPO, PR);
    expect(comments).toHaveLength(1);
    const [comment] = comments;
    expect(comment!.body).toMatch(/^<!-- proxybench:proxybench -->/);
    expect(comment!.body).toContain(`sha=${HEAD_SHA}`);
    expect(comment!.body).toContain("proxybench compare:");
    expect(comment!.body).toContain("| nginx");

    expect(first.summary).toContain("proxybench compare:");
    expect(first.summary).toContain("Requests/sec");

    expect(["regressed", "improved", "unchanged", "inconclusive"]).toContain(first.outputs.verdict);
    expect(first.outputs.regressions).toMatch(/^\d+$/);
    expect(first.outputs["comment-url"]).toBe(comment!.html_url);

    const second = await runAction(inputs, prEvent, "second");
    expect(second.code).toBe(0);
    const after = server.comments(REPO, PR);
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(comment!.id);
    expect(
      server.requests.filter((r) => r.method === "PATCH" && r.path.endsWith(`/comments/${comment!.id}`)),
    ).toHaveLength(1);
    expect(server.requests.filter((r) => r.method === "POST" && r.path.endsWith("/comments"))).toHaveLength(
      1,
    );
    expect(server.requests.every((r) => r.authorized)).toBe(true);
    expect(second.outputs["comment-url"]).toBe(comment!.html_url);
  });

  it("shows where it was measured in the comment, and links the artifact and the chart in the summary", async () => {
    const pr = PR + 1;
    const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
    const run = await runAction(
      {
        results: path.join(FIXTURES, "head"),
        "base-results": path.join(FIXTURES, "base"),
        token: server.token,
        "runner-name": "bench-01",
        "artifact-url": "https://github.test/octo/proxy-config/actions/runs/4242/artifacts/77",
        "gh-pages-dir": "dev/bench",
      },
      event,
      "links",
    );
    expect(run.stdout).not.toMatch(/::error::/);
    expect(run.code).toBe(0);
    // From the head's results.json: AMD EPYC, 2 cores, loadgen=0, proxy=1, upstream=1.
    const line =
      "Measured on **bench-01** (AMD EPYC, 2 cores); cores: load generator 0, proxy 1, upstream 1.";
    expect(server.comments(REPO, pr)[0]?.body).toContain(line);
    expect(run.summary).toContain(line);
    expect(run.summary).toContain(
      "[results artifact](https://github.test/octo/proxy-config/actions/runs/4242/artifacts/77)",
    );
    // GITHUB_SERVER_URL is not github.com here: the Enterprise Server address of Pages.
    expect(run.summary).toContain("[history chart](https://github.test/pages/octo/proxy-config/dev/bench/)");
    expect(run.summary).toContain("[this run](https://github.test/octo/proxy-config/actions/runs/4242)");
  });

  it("warns and succeeds when the token may not comment (a fork's or Dependabot's read-only token)", async () => {
    const pr = PR + 2;
    const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
    server.fail({
      method: "POST",
      path: new RegExp(`/issues/${pr}/comments$`),
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    const run = await runAction(
      {
        results: path.join(FIXTURES, "head"),
        "base-results": path.join(FIXTURES, "base"),
        token: server.token,
      },
      event,
      "read-only",
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/::warning::the token may not comment on this pull request/);
    expect(run.stdout).toContain("Resource not accessible by integration");
    expect(run.outputs["comment-url"]).toBe("");
    expect(run.summary).toContain("proxybench compare:");
    expect(server.comments(REPO, pr)).toEqual([]);
  });

  describe("a 403 is said as what it is", () => {
    const inputs = () => ({
      results: path.join(FIXTURES, "head"),
      "base-results": path.join(FIXTURES, "base"),
      token: server.token,
    });
    const eventFor = (pr: number) => ({
      ...prEvent,
      number: pr,
      pull_request: { ...prEvent.pull_request, number: pr },
    });

    it("a locked pull request: a warning saying so, the step passes", async () => {
      const pr = PR + 20;
      server.fail({
        method: "POST",
        path: new RegExp(`/issues/${pr}/comments$`),
        status: 403,
        body: {
          message: "Unable to create comment because issue is locked.",
          documentation_url: "https://docs.github.com/articles/locking-conversations/",
        },
      });
      const run = await runAction(inputs(), eventFor(pr), "locked");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        `::warning::pull request #${pr} is locked: no comment written; the report is in the job summary (403: Unable to create comment because issue is locked.)`,
      );
      expect(run.stdout).not.toContain("the token may not comment");
      expect(run.summary).toContain("proxybench compare:");
      expect(server.comments(REPO, pr)).toEqual([]);
    });

    it("a rate limit that outlasts the retries fails the step, naming it; the outputs are still set", async () => {
      const pr = PR + 21;
      server.fail({
        method: "GET",
        path: new RegExp(`/issues/${pr}/comments$`),
        status: 403,
        headers: { "retry-after": "1" },
        body: { message: SECONDARY_RATE_LIMIT_MESSAGE },
        times: 4,
      });
      const run = await runAction(inputs(), eventFor(pr), "rate-limited");
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        `::error::GitHub's rate limit stopped the comment on #${pr} (403: ${SECONDARY_RATE_LIMIT_MESSAGE}; retry after 1 s): no comment written, run the job again later`,
      );
      expect(run.stdout).not.toContain("the token may not comment");
      expect(server.pendingFaults()).toEqual([]);
      expect(run.outputs.verdict).toMatch(/^(regressed|improved|unchanged|inconclusive)$/);
      expect(run.outputs["comment-url"]).toBe("");
      expect(run.summary).toContain("proxybench compare:");
    });

    it("any other 403 fails the step with GitHub's message", async () => {
      const pr = PR + 22;
      const saml =
        "Resource protected by organization SAML enforcement. You must grant your OAuth token access to this organization.";
      server.fail({
        method: "POST",
        path: new RegExp(`/issues/${pr}/comments$`),
        status: 403,
        body: { message: saml },
      });
      const run = await runAction(inputs(), eventFor(pr), "forbidden");
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        `::error::GitHub refused the comment on #${pr} (403: ${saml}): no comment written`,
      );
      expect(run.stdout).not.toContain("the token may not comment");
      expect(server.comments(REPO, pr)).toEqual([]);
    });
  });

  it("one run holding base and head as variants: paired by round, and says so with the runner", async () => {
    const pr = PR + 3;
    const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
    const rounds = (p50: number) =>
      Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: p50 * (1 + i / 100) }));
    const run = buildResults([
      cell("nginx", rounds(5), { variant: "base" }),
      cell("nginx", rounds(6), { variant: "head" }),
    ]);
    run.settings.variants = [
      { name: "base", dir: "/w/base", imageTag: "pb-base" },
      { name: "head", dir: "/w/head", imageTag: "pb-head" },
    ];
    run.environment.hostname = "bench-host";
    const runDir = path.join(dir, "variant-run");
    await mkdir(runDir, { recursive: true });
    await writeFile(path.join(runDir, "results.json"), JSON.stringify(run));
    const outcome = await runAction(
      { results: runDir, token: server.token, "runner-name": "bench-02" },
      event,
      "variants",
    );
    expect(outcome.stdout).not.toMatch(/::error::/);
    expect(outcome.code).toBe(0);
    const body = server.comments(REPO, pr)[0]?.body ?? "";
    expect(body).toContain("Base and head paired over 10 rounds on **bench-02**");
    expect(body).toContain("p50 latency (ms)");
    // Head's p50 is 20% above the base's in every round: a regression, found without a base-results.
    expect(outcome.outputs.verdict).toBe("regressed");
    expect(Number(outcome.outputs.regressions)).toBeGreaterThan(0);
    expect(outcome.summary).toContain("paired over 10 rounds");
  });

  it("the shards of one run, downloaded side by side: merged, each runner named with its cells", async () => {
    const pr = PR + 4;
    const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
    const rounds = (p50: number) =>
      Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: p50 * (1 + i / 100) }));
    const downloads = path.join(dir, "shards");
    for (const [i, proxy] of ["nginx", "haproxy"].entries()) {
      const run = buildResults([
        cell(proxy, rounds(5), { variant: "base" }),
        cell(proxy, rounds(5), { variant: "head" }),
      ]);
      run.settings.proxies = ["nginx", "haproxy"];
      run.settings.variants = [
        { name: "base", dir: "/w/base" },
        { name: "head", dir: "/w/head" },
      ];
      run.settings.shard = { index: i + 1, count: 2 };
      run.environment.hostname = `bench-${i + 1}`;
      // download-artifact with a pattern: one folder per artifact.
      const shardDir = path.join(downloads, `proxybench-results-${i + 1}`);
      await mkdir(shardDir, { recursive: true });
      await writeFile(path.join(shardDir, "results.json"), JSON.stringify(run));
    }
    const outcome = await runAction({ results: downloads, token: server.token }, event, "shards");
    expect(outcome.stdout).not.toMatch(/::error::/);
    expect(outcome.code).toBe(0);
    const body = server.comments(REPO, pr)[0]?.body ?? "";
    expect(body).toContain(
      "Base and head paired over 10 rounds on 2 runners, each cell's pairs on one machine: **bench-1** (2 cells), **bench-2** (2 cells).",
    );
    expect(outcome.outputs.verdict).toBe("unchanged");

    // The same shards named one per line.
    const listed = await runAction(
      {
        results: `${path.join(downloads, "proxybench-results-1")}\n${path.join(downloads, "proxybench-results-2")}`,
        comment: "false",
        token: "",
      },
      { action: "push" },
      "shards-listed",
    );
    expect(listed.code).toBe(0);
    expect(listed.summary).toContain("on 2 runners");
  });

  describe("text from the results file reaches the comment and the summary inert", () => {
    // The host name, and every other string a results.json carries.
    const HOSTNAME = "@octocat [approve here](https://evil.example) <img src=x>";
    const CPU = "EPYC @acme/maintainers #1 www.evil.example";
    const PROXY = "nginx | @octocat <script>x</script>";
    const SCENARIO = "small ![i](https://evil.example/i.png)";
    const REASON = "see https://evil.example\n| forged | row |\n<details open>";
    const RUN_URL = "https://github.test/octo/proxy-config/actions/runs/4242";

    function hostileRun(hostname: string) {
      const rounds = (p50: number) =>
        Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: p50 * (1 + i / 100) }));
      const run = buildResults(
        [
          cell(PROXY, rounds(5), { variant: "base", scenario: SCENARIO, load: "`load`" }),
          cell(PROXY, rounds(6), { variant: "head", scenario: SCENARIO, load: "`load`" }),
          cell("haproxy", rounds(5), { variant: "base", scenario: SCENARIO, load: "`load`" }),
          cell("haproxy", [], {
            variant: "head",
            scenario: SCENARIO,
            load: "`load`",
            status: "failed",
            reasons: [REASON],
          }),
        ],
        { skipped: [{ proxy: "envoy @octocat", reason: REASON }] },
      );
      run.settings.variants = [
        { name: "base", dir: "/w/base" },
        { name: "head", dir: "/w/head" },
      ];
      run.environment.hostname = hostname;
      run.environment.cpuModel = CPU;
      run.environment.git = {
        commit: HEAD_SHA,
        branch: "feature/@octocat",
        message: "fix #1 [x](https://evil.example)",
      };
      return run;
    }

    it("one run: the host name, the CPU, proxies, scenarios and reasons are shown as written, nothing live", async () => {
      const pr = PR + 10;
      const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
      const runDir = path.join(dir, "hostile-run");
      await mkdir(runDir, { recursive: true });
      await writeFile(path.join(runDir, "results.json"), JSON.stringify(hostileRun(HOSTNAME)));
      const outcome = await runAction({ results: runDir, token: server.token }, event, "hostile");
      expect(outcome.stdout).not.toMatch(/::error::/);
      expect(outcome.code).toBe(0);
      const body = server.comments(REPO, pr)[0]?.body ?? "";
      expect(body).toContain("proxybench compare:");
      expect(liveMarkup(body)).toEqual([]);
      expect(liveMarkup(outcome.summary, [RUN_URL])).toEqual([]);
      const shown = visibleText(body);
      expect(shown).toContain(`Measured on ${HOSTNAME} (${CPU}, 2 cores)`);
      expect(shown).toContain(`on ${HOSTNAME}, interleaved on the same cores`);
      for (const text of [PROXY, SCENARIO, REASON.replace(/\n/g, " "), "envoy @octocat"])
        expect(shown).toContain(text);
    });

    it("shards: each runner's host name is shown as written, nothing live", async () => {
      const pr = PR + 11;
      const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
      const downloads = path.join(dir, "hostile-shards");
      const names = [HOSTNAME, "bench-2 | **@octocat**"];
      for (const [i, name] of names.entries()) {
        const run = hostileRun(name);
        // Shard 1 measured the crafted proxy, shard 2 haproxy.
        run.cells = run.cells.filter((c) => (c.proxy === PROXY) === (i === 0));
        run.settings.shard = { index: i + 1, count: 2 };
        const shardDir = path.join(downloads, `proxybench-results-${i + 1}`);
        await mkdir(shardDir, { recursive: true });
        await writeFile(path.join(shardDir, "results.json"), JSON.stringify(run));
      }
      const outcome = await runAction({ results: downloads, token: server.token }, event, "hostile-shards");
      expect(outcome.stdout).not.toMatch(/::error::/);
      expect(outcome.code).toBe(0);
      const body = server.comments(REPO, pr)[0]?.body ?? "";
      expect(body).toContain("on 2 runners");
      expect(liveMarkup(body)).toEqual([]);
      expect(liveMarkup(outcome.summary, [RUN_URL])).toEqual([]);
      expect(visibleText(body)).toContain(`one machine: ${names[0]} (2 cells), ${names[1]} (2 cells).`);
    });
  });

  describe("a fork's run that carries another pull request's head commit", () => {
    const MALLORY = "mallory/proxy-config";
    const VICTIM = "victim/proxy-config";
    const inputs = () => ({
      results: path.join(FIXTURES, "head"),
      "base-results": path.join(FIXTURES, "base"),
      token: server.token,
    });
    const runEvent = (sha: string, pulls: unknown[] = []) => ({
      action: "completed",
      workflow_run: {
        event: "pull_request",
        head_sha: sha,
        head_branch: "patch",
        head_repository: { full_name: MALLORY },
        pull_requests: pulls,
      },
      repository: { full_name: REPO },
    });
    /** Mallory's pull request first, then the victim's, newer, with the same head commit. */
    function openBoth(sha: string, mallory: number, victim: number) {
      server.addPull(REPO, { number: mallory, sha, ref: "patch", headRepo: MALLORY });
      server.addPull(REPO, { number: victim, sha, ref: "feature", headRepo: VICTIM });
    }

    it("comments on the fork's own pull request, never on the victim's", async () => {
      const sha = "d1".repeat(20);
      openBoth(sha, 40, 41);
      const run = await runAction(inputs(), runEvent(sha), "spoof-lookup");
      expect(run.code).toBe(0);
      expect(server.comments(REPO, 41)).toEqual([]);
      expect(server.comments(REPO, 40)).toHaveLength(1);
      expect(run.outputs["comment-url"]).toBe(server.comments(REPO, 40)[0]!.html_url);
    });

    it("does not take a pull request the workflow_run lists from another repository", async () => {
      const sha = "d2".repeat(20);
      openBoth(sha, 42, 43);
      // Mallory's fork has a pull request #43 of its own from the same branch: GitHub lists it.
      const theirs = { url: `https://api.github.test/repos/${MALLORY}`, id: 9, name: "proxy-config" };
      const listed = {
        number: 43,
        head: { ref: "patch", sha, repo: theirs },
        base: { ref: "main", sha, repo: theirs },
      };
      const run = await runAction(inputs(), runEvent(sha, [listed]), "spoof-listed");
      expect(run.code).toBe(0);
      expect(server.comments(REPO, 43)).toEqual([]);
      expect(server.comments(REPO, 42)).toHaveLength(1);
    });

    it("refuses a pr-number that names the victim's pull request (as a caller passes pull_requests[0])", async () => {
      const sha = "d3".repeat(20);
      openBoth(sha, 44, 45);
      const run = await runAction({ ...inputs(), "pr-number": "45" }, runEvent(sha), "spoof-input");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        `::warning::no comment: pull request #45 has the head ${VICTIM}:feature, this run's is ${MALLORY}:patch`,
      );
      expect(server.comments(REPO, 45)).toEqual([]);
      expect(server.comments(REPO, 44)).toEqual([]);
      expect(run.outputs["comment-url"]).toBe("");
      expect(run.summary).toContain("proxybench compare:");
    });

    it("refuses when two open pull requests have the run's branch and commit", async () => {
      const sha = "d4".repeat(20);
      server.addPull(REPO, { number: 46, sha, ref: "patch", headRepo: MALLORY });
      server.addPull(REPO, { number: 47, sha, ref: "patch", headRepo: MALLORY });
      const run = await runAction(inputs(), runEvent(sha), "spoof-two");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        `::warning::no comment: 2 open pull requests have the head ${MALLORY}:patch at ${sha} (#47, #46): not guessing which`,
      );
      expect(server.comments(REPO, 46)).toEqual([]);
      expect(server.comments(REPO, 47)).toEqual([]);
    });
  });

  describe("a head that failed: never unchanged", () => {
    const rounds = Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: 5 * (1 + i / 100) }));
    /** Base and head as variants; the head's cells of `failedProxies` failed to start. */
    async function runWithFailedHead(name: string, failedProxies: string[]): Promise<string> {
      const cells = ["nginx", "haproxy"].flatMap((proxy) => {
        const failed = failedProxies.includes(proxy);
        return [
          cell(proxy, rounds, { variant: "base" }),
          failed
            ? cell(proxy, [], {
                variant: "head",
                status: "failed",
                reasons: ["the proxy exited with code 1"],
              })
            : cell(proxy, rounds, { variant: "head" }),
        ];
      });
      const run = buildResults(cells);
      run.settings.variants = [
        { name: "base", dir: "/w/base" },
        { name: "head", dir: "/w/head" },
      ];
      const runDir = path.join(dir, name);
      await mkdir(runDir, { recursive: true });
      await writeFile(path.join(runDir, "results.json"), JSON.stringify(run));
      return runDir;
    }

    it("nothing compared: inconclusive, and with fail-on-regression the step fails saying why", async () => {
      const runDir = await runWithFailedHead("failed-head", ["nginx", "haproxy"]);
      const inputs = { results: runDir, comment: "false", token: "" };
      const quiet = await runAction(inputs, { action: "push" }, "failed-head");
      expect(quiet.code).toBe(0);
      expect(quiet.outputs).toMatchObject({ verdict: "inconclusive", regressions: "0" });
      expect(quiet.stdout).toContain(
        "::warning::verdict inconclusive: nothing was compared (2 cells not compared)",
      );
      expect(quiet.summary).toContain("head is failed (the proxy exited with code 1)");

      const strict = await runAction(
        { ...inputs, "fail-on-regression": "true" },
        { action: "push" },
        "failed-head-strict",
      );
      expect(strict.code).toBe(1);
      expect(strict.outputs.verdict).toBe("inconclusive");
      expect(strict.stdout).toContain(
        "::error::nothing was compared (2 cells not compared) (fail-on-regression is set)",
      );
    });

    it("one head cell failed, the other unchanged: inconclusive, and fails with fail-on-regression", async () => {
      const runDir = await runWithFailedHead("half-failed-head", ["haproxy"]);
      const inputs = { results: runDir, comment: "false", token: "", "fail-on-regression": "true" };
      const run = await runAction(inputs, { action: "push" }, "half-failed-head");
      expect(run.code).toBe(1);
      expect(run.outputs).toMatchObject({ verdict: "inconclusive", regressions: "0" });
      expect(run.stdout).toContain(
        "::error::the head has 1 cell failed or invalid (small/default/haproxy/k6@head: failed) (fail-on-regression is set)",
      );
      // The same run with both sides whole stays quiet: unchanged, the step passes.
      const whole = await runAction(
        { ...inputs, results: await runWithFailedHead("whole-head", []) },
        { action: "push" },
        "whole-head",
      );
      expect(whole.code).toBe(0);
      expect(whole.outputs.verdict).toBe("unchanged");
      expect(whole.stdout).not.toMatch(/::(warning|error)::/);
    });
  });

  describe("the report knows what it expected: a missing section, shard or failed job is never unchanged", () => {
    const rounds = Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: 5 * (1 + i / 100) }));
    /** Jobs as `toJSON(needs)` gives them: each with its result (and outputs). */
    const needs = (results: Record<string, string>) =>
      JSON.stringify(
        Object.fromEntries(Object.entries(results).map(([job, result]) => [job, { result, outputs: {} }])),
      );

    /** A report of one wall-clock run that fails on any shortfall, given how the jobs ended. */
    const strict = (results: string, jobs: Record<string, string>) => ({
      results,
      comment: "false",
      token: "",
      "fail-on-regression": "true",
      "expected-shards": "1",
      jobs: needs(jobs),
    });

    /** A paired wall-clock run of `proxies`, head equal to base: unchanged; written as an artifact folder. */
    async function wallClock(into: string, proxies: string[], shardOf?: { index: number; count: number }) {
      const run = buildResults(
        proxies.flatMap((p) => [cell(p, rounds, { variant: "base" }), cell(p, rounds, { variant: "head" })]),
      );
      run.settings.proxies = ["nginx", "haproxy", "envoy"];
      run.settings.variants = [
        { name: "base", dir: "/w/base" },
        { name: "head", dir: "/w/head" },
      ];
      if (shardOf !== undefined) run.settings.shard = shardOf;
      await mkdir(into, { recursive: true });
      await writeFile(path.join(into, "results.json"), JSON.stringify(run));
    }

    /** The counted run's artifact folder: base and head count the same instructions (unchanged). */
    async function counted(into: string) {
      await mkdir(into, { recursive: true });
      const same = [41_000, 41_010, 41_005];
      await writeFile(
        path.join(into, "instructions.json"),
        JSON.stringify(countedRun({ base: same, head: same })),
      );
    }

    it("a lost wall-clock benchmark (the bench job failed, no artifact): inconclusive, failing with fail-on-regression", async () => {
      // What bench.yml's report job holds after a failed bench job: the pattern download found
      // nothing (and did not fail), the counted run is there.
      const downloads = path.join(dir, "lost-wall-clock");
      await counted(path.join(downloads, "proxybench-instructions"));
      const inputs = strict(downloads, { "detect-env": "success", bench: "failure", count: "success" });
      const run = await runAction(inputs, { action: "push" }, "lost-wall-clock");
      expect(run.outputs.verdict).toBe("inconclusive");
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        "::error::the job bench failed; no wall-clock results (1 shard expected) (fail-on-regression is set)",
      );
      expect(visibleText(run.summary)).toContain(
        "Incomplete: the job bench failed; no wall-clock results (1 shard expected).",
      );
      // Every job succeeded but the artifact is still not there: the same shortfall, said alone.
      const quiet = await runAction(
        { ...inputs, jobs: needs({ bench: "success", count: "success" }), "fail-on-regression": "false" },
        { action: "push" },
        "lost-wall-clock-quiet",
      );
      expect(quiet.code).toBe(0);
      expect(quiet.outputs.verdict).toBe("inconclusive");
      expect(quiet.stdout).toContain(
        "::warning::verdict inconclusive: no wall-clock results (1 shard expected)",
      );
    });

    it("a lost shard: inconclusive, naming it, even where no one said how many to expect", async () => {
      const downloads = path.join(dir, "lost-shard");
      await wallClock(path.join(downloads, "proxybench-results-1"), ["nginx"], { index: 1, count: 3 });
      await wallClock(path.join(downloads, "proxybench-results-3"), ["envoy"], { index: 3, count: 3 });
      const inputs = { results: downloads, comment: "false", token: "", "fail-on-regression": "true" };
      const run = await runAction(inputs, { action: "push" }, "lost-shard");
      expect(run.outputs.verdict).toBe("inconclusive");
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("::error::wall-clock shard 2 of 3 missing (fail-on-regression is set)");
      // Shards of another split than the workflow ran: said as such.
      const other = await runAction({ ...inputs, "expected-shards": "4" }, { action: "push" }, "other-split");
      expect(other.stdout).toContain(
        "the wall-clock results are shards of 3, not of the 4 expected; wall-clock shard 2 of 3 missing",
      );
      // All three there: unchanged, the step passes.
      await wallClock(path.join(downloads, "proxybench-results-2"), ["haproxy"], { index: 2, count: 3 });
      const whole = await runAction(
        { ...inputs, "expected-shards": "3" },
        { action: "push" },
        "no-lost-shard",
      );
      expect(whole.stdout).not.toMatch(/::(warning|error)::/);
      expect([whole.code, whole.outputs.verdict]).toEqual([0, "unchanged"]);
    });

    it("a failed count job: its section is missing, and the report says so instead of passing unchanged", async () => {
      const downloads = path.join(dir, "failed-count");
      await wallClock(path.join(downloads, "proxybench-results-1"), ["nginx"]);
      const inputs = strict(downloads, { "detect-env": "success", bench: "success", count: "failure" });
      const run = await runAction(inputs, { action: "push" }, "failed-count");
      expect(run.outputs.verdict).toBe("inconclusive");
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("::error::the job count failed (fail-on-regression is set)");
      expect(visibleText(run.summary)).toContain("Incomplete: the job count failed.");
      // A count job its `if:` skipped (count: false) is no shortfall.
      const skipped = await runAction(
        { ...inputs, jobs: needs({ bench: "success", count: "skipped" }) },
        { action: "push" },
        "skipped-count",
      );
      expect([skipped.code, skipped.outputs.verdict]).toEqual([0, "unchanged"]);
    });

    it("nothing downloaded at all: the step fails, saying which job did not make the results", async () => {
      const run = await runAction(
        {
          results: path.join(dir, "never-downloaded"),
          comment: "false",
          token: "",
          jobs: needs({ bench: "cancelled", count: "failure" }),
        },
        { action: "push" },
        "nothing-downloaded",
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        "no such results directory or file (the job bench was cancelled; the job count failed)",
      );
    });

    it("refuses expected-shards and jobs it cannot read, naming the input", async () => {
      const base = { results: path.join(FIXTURES, "head"), comment: "false", token: "" };
      const shards = await runAction({ ...base, "expected-shards": "two" }, { action: "push" }, "bad-shards");
      expect(shards.stdout).toContain(
        "::error::input 'expected-shards': expected a whole number >= 0, got 'two'",
      );
      const jobs = await runAction({ ...base, jobs: '{"bench":"failure"}' }, { action: "push" }, "bad-jobs");
      expect(jobs.stdout).toContain(
        "::error::input 'jobs': job 'bench': expected a result of success, failure, cancelled, skipped, got none",
      );
    });
  });

  it("without a base: the tables alone, no verdict", async () => {
    const run = await runAction(
      { results: path.join(FIXTURES, "head"), comment: "false", token: "" },
      { action: "push" },
      "no-base",
    );
    expect(run.code).toBe(0);
    expect(run.summary).toContain("Requests/sec");
    expect(run.summary).not.toContain("proxybench compare:");
    expect(run.outputs).toMatchObject({ verdict: "", regressions: "0", "comment-url": "" });
  });

  it("fails the step on a bad input, naming it", async () => {
    const run = await runAction(
      { results: path.join(FIXTURES, "head"), threshold: "five", token: server.token },
      prEvent,
      "bad-input",
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("::error::input 'threshold': expected a percentage >= 0, got 'five'");
  });

  it("fails the step on results that are not valid, naming the file", async () => {
    await writeFile(path.join(dir, "bad-results.json"), '{"schemaVersion": 1}');
    const run = await runAction(
      { results: path.join(dir, "bad-results.json"), comment: "false" },
      prEvent,
      "bad-results",
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/::error::.*bad-results\.json/);
  });
});

describe("getSettings", () => {
  const defaults: Record<string, string> = Object.fromEntries(
    Object.entries(actionYml.inputs).map(([k, v]) => [
      k,
      (v.default ?? "").includes("${{") ? "" : (v.default ?? ""),
    ]),
  );
  const env = { GITHUB_REPOSITORY: "o/r", GITHUB_API_URL: "http://127.0.0.1:1" } as NodeJS.ProcessEnv;
  const reader = (values: Record<string, string>) => (name: string) =>
    ({ ...defaults, results: "r", token: "t", ...values })[name] ?? "";

  it("reads the defaults into typed settings", () => {
    expect(getSettings(reader({}), env)).toEqual({
      results: ["r"],
      thresholdPct: 5,
      floorPct: 0.5,
      alpha: 0.05,
      failOnRegression: false,
      comment: true,
      summary: true,
      marker: "proxybench",
      token: "t",
      apiUrl: "http://127.0.0.1:1",
      owner: "o",
      repo: "r",
    });
  });

  it.each<[Record<string, string>, RegExp]>([
    [{ results: "" }, /input 'results': required/],
    [{ threshold: "-1" }, /input 'threshold': expected a percentage >= 0, got '-1'/],
    [{ floor: "x" }, /input 'floor': expected a percentage >= 0, got 'x'/],
    [{ alpha: "1" }, /input 'alpha': expected a number between 0 and 1/],
    [{ comment: "yes" }, /input 'comment': expected true or false, got 'yes'/],
    [{ "fail-on-regression": "1" }, /input 'fail-on-regression'/],
    [{ "pr-number": "abc" }, /input 'pr-number': expected a pull request number/],
    [{ "head-sha": "not-a-sha" }, /input 'head-sha': expected a hexadecimal commit sha/],
    [{ "details-url": "javascript:alert(1)" }, /input 'details-url': expected an http\(s\) URL/],
    [{ marker: "a b" }, /input 'marker'/],
    [{ repository: "nope" }, /input 'repository': expected owner\/name/],
    [{ "artifact-url": "file:///etc" }, /input 'artifact-url': expected an http\(s\) URL/],
    [{ "chart-url": "ftp://x" }, /input 'chart-url': expected an http\(s\) URL/],
    [{ token: "" }, /input 'token': required to comment/],
  ])("%j", (values, error) => {
    expect(() => getSettings(reader(values), env)).toThrow(error);
  });

  it("takes the pull request and the head from a workflow_run event, the input first", async () => {
    const file = path.join(dir, "workflow-run-event.json");
    const pull = (number: number, repo: string) => ({
      number,
      head: { ref: "feature", sha: "abcdef1234", repo: { url: `https://api.github.test/repos/${repo}` } },
      base: { ref: "main", sha: "1234abcdef", repo: { url: `https://api.github.test/repos/${repo}` } },
    });
    const event = (pulls: unknown[]) => ({
      workflow_run: {
        head_sha: "abcdef1234",
        head_branch: "feature",
        head_repository: { full_name: "fork/r" },
        pull_requests: pulls,
      },
    });
    const withEvent = { ...env, GITHUB_EVENT_PATH: file };
    await writeFile(file, JSON.stringify(event([pull(3, "fork/r"), pull(12, "O/R")])));
    expect(getSettings(reader({}), withEvent)).toMatchObject({
      pr: 12,
      headSha: "abcdef1234",
      headBranch: { repository: "fork/r", name: "feature" },
      checkPr: true,
    });
    expect(getSettings(reader({ "pr-number": "3" }), withEvent)).toMatchObject({ pr: 3, checkPr: true });
    // Only another repository's pull request (a fork's own): none taken, to be looked up.
    await writeFile(file, JSON.stringify(event([pull(3, "fork/r")])));
    expect(getSettings(reader({}), withEvent).pr).toBeUndefined();
    await writeFile(file, JSON.stringify(event([{ number: 12 }])));
    expect(getSettings(reader({}), withEvent).pr).toBeUndefined();
  });

  it("takes the head branch of a pull_request event, and trusts its number", async () => {
    const file = path.join(dir, "pull-request-event.json");
    await writeFile(
      file,
      JSON.stringify({
        pull_request: { number: 4, head: { sha: "abcdef1234", ref: "fix", repo: { full_name: "fork/r" } } },
      }),
    );
    const settings = getSettings(reader({}), { ...env, GITHUB_EVENT_PATH: file });
    expect(settings).toMatchObject({ pr: 4, headBranch: { repository: "fork/r", name: "fix" } });
    expect(settings.checkPr).toBeUndefined();
  });
});

describe("pagesUrl", () => {
  it.each<[string, string, string, string, string]>([
    [
      "https://github.com",
      "Octo",
      "proxy-config",
      "dev/bench",
      "https://octo.github.io/proxy-config/dev/bench/",
    ],
    ["https://github.com", "octo", "octo.github.io", "/dev/bench/", "https://octo.github.io/dev/bench/"],
    ["https://github.com/", "octo", "r", "", "https://octo.github.io/r/"],
    ["https://ghe.example.com", "octo", "r", "dev/bench", "https://ghe.example.com/pages/octo/r/dev/bench/"],
  ])("%s %s/%s %s", (server, owner, repo, dir, expected) => {
    expect(pagesUrl(server, owner, repo, dir)).toBe(expected);
  });

  it("a chart-url input wins over gh-pages-dir", () => {
    const read = (values: Record<string, string>) => (name: string) =>
      ({
        results: "r",
        comment: "false",
        summary: "true",
        "fail-on-regression": "false",
        threshold: "5",
        alpha: "0.05",
        ...values,
      })[name] ?? "";
    const env = { GITHUB_REPOSITORY: "o/r", GITHUB_SERVER_URL: "https://github.com" } as NodeJS.ProcessEnv;
    expect(getSettings(read({ "gh-pages-dir": "dev/bench" }), env).chartUrl).toBe(
      "https://o.github.io/r/dev/bench/",
    );
    expect(
      getSettings(read({ "gh-pages-dir": "dev/bench", "chart-url": "https://charts.example/x" }), env)
        .chartUrl,
    ).toBe("https://charts.example/x");
    expect(getSettings(read({}), env).chartUrl).toBeUndefined();
  });
});

describe("findPullRequest", () => {
  const VICTIM = "victim/proxy-config";
  const MALLORY = "mallory/proxy-config";
  const SHA = "c0ffee".padEnd(40, "0");
  let api: GitHubServer;
  beforeAll(async () => {
    api = await startGitHubServer();
  });
  afterAll(async () => {
    await api?.close();
  });
  const client = () => createClient({ token: api.token, baseUrl: api.url, delayBaseMs: 5 });
  const query = (extra: Partial<Parameters<typeof findPullRequest>[1]> = {}) => ({
    owner: "o",
    repo: "r",
    headSha: SHA,
    headBranch: { repository: MALLORY, name: "patch" },
    ...extra,
  });

  it("finds the one open pull request whose head is the branch and the commit, across pages", async () => {
    for (let n = 1; n <= 130; n++) api.addPull("o/r", { number: n, sha: n.toString(16).padStart(40, "0") });
    // The victim's pull request is newer and has the same head commit, from another fork.
    api.addPull("o/r", { number: 201, sha: SHA, ref: "patch", headRepo: MALLORY });
    api.addPull("o/r", { number: 202, sha: SHA, ref: "patch", headRepo: VICTIM });
    api.addPull("o/r", { number: 203, sha: SHA, ref: "patch", headRepo: MALLORY, state: "closed" });
    api.addPull("o/r", { number: 204, sha: SHA, ref: "patch", headRepo: null });
    expect(await findPullRequest(client(), query({ headSha: SHA.toUpperCase() }))).toEqual({ pr: 201 });
    expect(
      await findPullRequest(client(), query({ headBranch: { repository: VICTIM, name: "patch" } })),
    ).toEqual({ pr: 202 });
    const pages = api.requests.filter((r) => r.path === "/repos/o/r/pulls").map((r) => r.query.page ?? "1");
    expect(pages).toEqual(["1", "2", "1", "2"]);
    expect(
      await findPullRequest(client(), query({ headBranch: { repository: MALLORY, name: "other" } })),
    ).toEqual({
      none: `no open pull request has the head ${MALLORY}:other at ${SHA}`,
    });
  });

  it("refuses when two open pull requests have that head, or when only the commit is known", async () => {
    api.addPull("o/two", { number: 1, sha: SHA, ref: "patch", headRepo: MALLORY });
    api.addPull("o/two", { number: 2, sha: SHA, ref: "patch", headRepo: MALLORY });
    expect(await findPullRequest(client(), query({ repo: "two" }))).toEqual({
      refused: `2 open pull requests have the head ${MALLORY}:patch at ${SHA} (#2, #1): not guessing which`,
    });
    const before = api.requests.length;
    expect(await findPullRequest(client(), { owner: "o", repo: "two", headSha: SHA })).toEqual({
      refused: `the event names no head branch: a pull request is not looked up by its commit ${SHA} alone`,
    });
    expect(api.requests.length).toBe(before);
  });

  it("a number given with a workflow_run is used only when its head is the run's branch", async () => {
    api.addPull("o/given", { number: 5, sha: SHA, ref: "patch", headRepo: VICTIM });
    api.addPull("o/given", { number: 6, sha: "1".repeat(40), ref: "patch", headRepo: MALLORY });
    expect(await findPullRequest(client(), query({ repo: "given", pr: 5, checkPr: true }))).toEqual({
      refused: `pull request #5 has the head ${VICTIM}:patch, this run's is ${MALLORY}:patch`,
    });
    // The head moved on since: still the run's branch, so still its pull request.
    expect(await findPullRequest(client(), query({ repo: "given", pr: 6, checkPr: true }))).toEqual({
      pr: 6,
    });
    expect(await findPullRequest(client(), query({ repo: "given", pr: 99, checkPr: true }))).toEqual({
      refused: "pull request #99 is not one of o/given's",
    });
    // From a pull_request event (or without a workflow_run), the number is the event's: no lookup.
    const before = api.requests.length;
    expect(await findPullRequest(client(), query({ repo: "given", pr: 5 }))).toEqual({ pr: 5 });
    expect(api.requests.length).toBe(before);
  });
});
