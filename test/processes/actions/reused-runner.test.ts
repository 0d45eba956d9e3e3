import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { renderMarkdownReport } from "../../../src/report/markdown.js";
import { readResults } from "../../../src/results/io.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { startGitHubServer, type GitHubServer } from "../../support/github-server.js";
import { runReportAction } from "../../support/actions/report-action.js";

/**
 * bench.yml run twice in a row on one self-hosted runner, as the runner runs it: the workspace
 * (_work/<repo>/<repo>) is kept between jobs, RUNNER_TEMP (_work/_temp) is emptied at the start
 * of each job. The benchmark step's results-dir is resolved from bench.yml itself; the numbers
 * of each run stand in for `proxybench run` (which refuses a folder that already holds
 * results); the bundled report action then comments, as in the report job.
 */

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  jobs: Record<string, { steps?: Step[] }>;
}

const FIXTURES = path.join(PROJECT_ROOT, "test", "fixtures", "actions");
const REPO = "octo/proxy-config";
const PR = 11;
const SHAS = ["1".repeat(40), "2".repeat(40)];

const bench = parseYaml(
  readFileSync(path.join(PROJECT_ROOT, ".github/workflows/bench.yml"), "utf8"),
) as Workflow;

/** The one expression a results-dir may hold: runner.temp. Anything else fails the test. */
export function resolvePath(value: string, runnerTemp: string): string {
  const resolved = value.replace(/\$\{\{\s*runner\.temp\s*\}\}/g, runnerTemp);
  if (resolved.includes("${{")) throw new Error(`cannot resolve ${value} here`);
  return resolved;
}

let server: GitHubServer;
let root: string;

beforeAll(async () => {
  server = await startGitHubServer();
  root = await mkdtemp(path.join(tmpdir(), "pb-reused-runner-"));
});
afterAll(async () => {
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** One benchmark job: a fresh RUNNER_TEMP, the same workspace; returns its results folder. */
async function benchmarkJob(results: string): Promise<string> {
  const workspace = path.join(root, "_work", "proxy-config", "proxy-config");
  const runnerTemp = path.join(root, "_work", "_temp");
  await rm(runnerTemp, { recursive: true, force: true });
  await mkdir(runnerTemp, { recursive: true });
  await mkdir(workspace, { recursive: true });
  const step = (bench.jobs.bench?.steps ?? []).find((s) => s.id === "bench");
  if (!step) throw new Error("bench.yml has no benchmark step (id: bench)");
  const dir = path.resolve(workspace, resolvePath(String(step?.with?.["results-dir"]), runnerTemp));
  // `proxybench run --out` refuses a folder that already holds results.
  if (existsSync(path.join(dir, "results.json")))
    throw new Error(`--out ${dir} already holds results (an earlier run's)`);
  await mkdir(dir, { recursive: true });
  await copyFile(results, path.join(dir, "results.json"));
  return dir;
}

describe("bench.yml twice on one reused self-hosted runner", () => {
  it("resolvePath resolves runner.temp only", () => {
    expect(resolvePath("${{ runner.temp }}/proxybench/head", "/t")).toBe("/t/proxybench/head");
    expect(resolvePath("results/head", "/t")).toBe("results/head");
    expect(() => resolvePath("${{ github.run_id }}/x", "/t")).toThrow(/cannot resolve/);
  });

  it("the second run measures into an empty folder and its report shows the new numbers", async () => {
    const scratch = await mkdtemp(path.join(root, "action-"));
    const ctx = { dir: scratch, apiUrl: server.url, repository: REPO };
    const fixtures = [
      path.join(FIXTURES, "head", "results.json"),
      path.join(FIXTURES, "base", "results.json"),
    ];
    const tables: string[] = [];
    for (const [i, fixture] of fixtures.entries()) {
      const results = await benchmarkJob(fixture);
      const sha = SHAS[i]!;
      server.setPullHead(REPO, PR, sha);
      const event = { action: "synchronize", number: PR, pull_request: { number: PR, head: { sha } } };
      const run = await runReportAction(
        ctx,
        { results, token: server.token, "head-sha": sha, "runner-name": "bench-01" },
        event,
        `run-${i}`,
      );
      expect(run.stdout).not.toMatch(/::error::/);
      expect(run.code).toBe(0);
      tables.push(renderMarkdownReport(await readResults(fixture)));
    }
    expect(tables[0]).not.toBe(tables[1]);
    const comments = server.comments(REPO, PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(tables[1]!);
    expect(comments[0]!.body).not.toContain(tables[0]!);
    expect(comments[0]!.body).toContain(`sha=${SHAS[1]}`);
  });
});
