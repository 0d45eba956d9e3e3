import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/publish/git-support.js";
import { startGitHubServer, type GitHubServer } from "../../support/github-server.js";
import { runReportAction } from "../../support/actions/report-action.js";
import { editResults, extensibilityRun, HOSTILE, llrpRun } from "../../support/measures/study/study-runs.js";

// bench.yml's `study:` input: the benchmark job uploads the study run's folder (one folder per
// test) as an artifact, the report job downloads it into results/<artifact>/ and runs the bundled
// action on results/. The comment and the job summary carry the study's table, rendered again from
// the results by the study's renderer, under a headline that claims no verdict.
const REPO = "octo/gateway";
const HEAD_SHA = "5717d7c0ffee00000000000000000000000ca7e5";

let server: GitHubServer;
let tmp: string;

/** A report job's download folder holding the extensibility run as its one artifact. */
async function downloadedStudy(name: string): Promise<string> {
  const downloaded = path.join(tmp, name);
  const artifact = path.join(downloaded, "proxybench-results-1");
  await extensibilityRun(artifact);
  await editResults(artifact, (r) => {
    r.environment.git = { commit: HEAD_SHA, timestamp: "2026-11-26T04:00:00Z" };
  });
  return downloaded;
}

const visible = (body: string) => body.replace(/^(<!--[^\n]*-->\n)+/, "");

function prInputs(downloaded: string, pr: number): Record<string, string> {
  return { results: downloaded, "pr-number": String(pr), "head-sha": HEAD_SHA, token: server.token };
}

const event = (pr: number) => ({ pull_request: { number: pr }, repository: { full_name: REPO } });

beforeAll(async () => {
  server = await startGitHubServer();
  tmp = await mkdtemp(path.join(os.tmpdir(), "pb-report-study-"));
});

afterAll(async () => {
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe("the report action on a study run's artifact", () => {
  it("posts the study's table under a headline without a verdict, and the CLI posts the same", async () => {
    const downloaded = await downloadedStudy("results");
    server.addPull(REPO, { number: 21, sha: HEAD_SHA, ref: "study", headRepo: REPO });
    server.addPull(REPO, { number: 22, sha: HEAD_SHA, ref: "study-cli", headRepo: REPO });
    const ctx = { dir: tmp, apiUrl: server.url, repository: REPO };
    const action = await runReportAction(ctx, prInputs(downloaded, 21), event(21), "study");
    expect(action.stdout).not.toMatch(/::error::/);
    expect(action.code).toBe(0);
    expect(action.outputs.verdict).toBe("");
    expect(action.outputs.regressions).toBe("0");

    const body = server.comments(REPO, 21)[0]?.body ?? "";
    const [headline] = visible(body).split("\n");
    expect(headline).toBe(
      "## proxybench: study extensibility, options side by side (no verdict against a base)",
    );
    expect(body).toContain("### Study: extensibility");
    expect(body).toContain("It is no comparison with the base branch");
    expect(body).toContain("#### What a customisation costs");
    expect(body).toContain("##### graphql-static-header · apollo-router");
    expect(body).toMatch(/^\| script +\| +0\.83 \| 1\.67<br>\(~ -0\.24\) /m);
    expect(body).toMatch(/^- \*\*go\*\* is skipped: /m);
    expect(action.summary).toContain("##### graphql-guid-response · apollo-router");

    const cli = await runCli(["comment", downloaded, "--repo", REPO, "--pr", "22", "--head-sha", HEAD_SHA], {
      GITHUB_TOKEN: server.token,
      GITHUB_API_URL: server.url,
    });
    expect(cli.stderr).not.toMatch(/error/i);
    expect(cli.code).toBe(0);
    expect(visible(server.comments(REPO, 22)[0]?.body ?? "")).toBe(visible(body));
  });

  it("posts a study whose results.json is its folder's own (LLRP: proxies side by side)", async () => {
    const downloaded = path.join(tmp, "llrp");
    const artifact = path.join(downloaded, "proxybench-results-1");
    await llrpRun(artifact);
    await editResults(artifact, (r) => {
      r.environment.git = { commit: HEAD_SHA, timestamp: "2026-11-26T04:00:00Z" };
    });
    server.addPull(REPO, { number: 25, sha: HEAD_SHA, ref: "llrp", headRepo: REPO });
    const ctx = { dir: tmp, apiUrl: server.url, repository: REPO };
    const action = await runReportAction(ctx, prInputs(downloaded, 25), event(25), "llrp");
    expect(action.code).toBe(0);
    expect(action.outputs.verdict).toBe("");
    const body = visible(server.comments(REPO, 25)[0]?.body ?? "");
    expect(body.split("\n")[0]).toBe(
      "## proxybench: study llrp, proxies side by side (no verdict against a base)",
    );
    expect(body).toMatch(/^#### .* \(study llrp\)$/m);
    expect(body).toMatch(/^\| Mean latency \(us\) /m);
    expect(body).not.toContain("### Wall clock");
  });

  it("escapes hostile names and reasons from the artifact", async () => {
    const downloaded = await downloadedStudy("hostile");
    await editResults(path.join(downloaded, "proxybench-results-1"), (r) => {
      r.skipped.push({ proxy: HOSTILE, scenario: r.settings.scenarios[0] ?? "", reason: HOSTILE });
    });
    server.addPull(REPO, { number: 23, sha: HEAD_SHA, ref: "hostile", headRepo: REPO });
    const ctx = { dir: tmp, apiUrl: server.url, repository: REPO };
    const action = await runReportAction(ctx, prInputs(downloaded, 23), event(23), "hostile");
    expect(action.code).toBe(0);
    const body = server.comments(REPO, 23)[0]?.body ?? "";
    expect(body).toContain("@\u200Bsomeone see #\u200B12 &lt;img src=x onerror=alert(1)&gt; a\\|b");
    expect(body).not.toContain("@someone");
    expect(body).not.toContain("<img");
  });

  it("fails on a study run downloaded beside a plain run, naming both", async () => {
    const downloaded = await downloadedStudy("mixed");
    const plain = path.join(downloaded, "proxybench-results-2");
    await llrpRun(plain);
    await editResults(plain, (r) => delete r.settings.study);
    server.addPull(REPO, { number: 24, sha: HEAD_SHA, ref: "mixed", headRepo: REPO });
    const ctx = { dir: tmp, apiUrl: server.url, repository: REPO };
    const action = await runReportAction(ctx, prInputs(downloaded, 24), event(24), "mixed");
    expect(action.code).not.toBe(0);
    expect(action.stdout).toContain("::error::");
    expect(action.stdout).toContain("a study run (study extensibility:");
    expect(action.stdout).toContain(
      path.join(downloaded, "proxybench-results-1", "graphql-static-header-apollo-router"),
    );
    expect(action.stdout).toContain(`mixed with other runs (${plain})`);
    expect(server.comments(REPO, 24)).toHaveLength(0);
  });
});
