import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInstructions } from "../../../src/measures/counted/run.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { runCli } from "../../support/publish/git-support.js";
import { cell, results } from "../../support/report/build.js";
import { startGitHubServer, type GitHubServer } from "../../support/github-server.js";
import { runReportAction } from "../../support/actions/report-action.js";

// The one PR comment (issue: "one PR comment that decides"): bench.yml's report job downloads
// the wall-clock shards and the counted run into one folder; the bundled action posts one
// comment, counted verdicts first, and `proxybench comment` given the same folder posts the
// same text. The counted run is real (nginx under callgrind, base and head variants, the head
// with one more proxy_set_header); the wall-clock run is built (A/A-like latencies).
const REPO = "octo/gateway";
const HEAD_SHA = "7a11c0ffee0000000000000000000000000cafe1";
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";

let server: GitHubServer;
let tmp: string;
let downloaded: string;

async function nginxVariant(name: string, extra: string): Promise<{ name: string; dir: string }> {
  const dir = path.join(tmp, "variants", name);
  await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(dir, "proxies", "nginx"), {
    recursive: true,
  });
  const conf = path.join(dir, "proxies", "nginx", "nginx.conf");
  const text = await readFile(conf, "utf8");
  await writeFile(conf, text.replace("proxy_set_header Host $http_host;", `$&${extra}`));
  return { name, dir };
}

/** Paired wall-clock rounds whose head equals its base but for a little noise: nothing to find. */
function wallClockRun(): string {
  const rounds = Array.from({ length: 12 }, (_, i) => 1 + ((i * 7) % 5) / 100);
  const side = (variant: string, shift: number) =>
    cell(
      "nginx",
      rounds.map((r, i) => ({ rps: 1000, p50: r + (i % 2 === 0 ? shift : -shift) })),
      { variant, scenario: "passthrough" },
    );
  const run = results([side("base", 0), side("head", 0.001)], {
    environment: {
      os: "linux",
      kernel: "6.1.0",
      arch: "x64",
      cpuModel: "Test CPU",
      cores: 2,
      loadAverage: [0.1, 0.2, 0.3],
      node: "v20",
      hostname: "bench-1",
      git: { commit: HEAD_SHA, timestamp: "2026-11-25T10:00:00Z" },
    },
  });
  return JSON.stringify(run);
}

beforeAll(async () => {
  server = await startGitHubServer();
  tmp = await mkdtemp(path.join(os.tmpdir(), "pb-report-combined-"));
  downloaded = path.join(tmp, "results");
  await runInstructions({
    proxies: ["nginx"],
    variants: [
      await nginxVariant("base", ""),
      await nginxVariant("head", " proxy_set_header X-Trace $request_id;"),
    ],
    repetitions: 2,
    requests: 200,
    warmupRequests: 20,
    cpus,
    out: path.join(downloaded, "proxybench-instructions"),
    log: () => undefined,
  });
  const shard = path.join(downloaded, "proxybench-results-1");
  await mkdir(shard, { recursive: true });
  await writeFile(path.join(shard, "results.json"), wallClockRun());
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The comment's text below its hidden markers (they name the marker and the head). */
const visible = (body: string) => body.replace(/^(<!--[^\n]*-->\n)+/, "");

describe("one PR comment: counted verdicts first, then wall clock", () => {
  it("the action posts both sections, the counted regression decides, and the CLI posts the same", async () => {
    server.addPull(REPO, { number: 11, sha: HEAD_SHA, ref: "feature", headRepo: REPO });
    server.addPull(REPO, { number: 12, sha: HEAD_SHA, ref: "other", headRepo: REPO });
    const inputs = { results: downloaded, "pr-number": "11", "head-sha": HEAD_SHA, token: server.token };
    const event = { pull_request: { number: 11 }, repository: { full_name: REPO } };
    const ctx = { dir: tmp, apiUrl: server.url, repository: REPO };
    const action = await runReportAction(ctx, inputs, event, "combined");
    expect(action.stdout).not.toMatch(/::error::/);
    expect(action.code).toBe(0);
    expect(action.outputs.verdict).toBe("regressed");
    expect(Number(action.outputs.regressions)).toBeGreaterThanOrEqual(1);

    const body = server.comments(REPO, 11)[0]?.body ?? "";
    expect(body).toMatch(/## proxybench: \*\*regressed\*\* \(counted: [12] regressed, .*; wall clock: /);
    const counted = body.indexOf("### Counted: instructions per request");
    const wall = body.indexOf("### Wall clock: latency, CPU and memory per request");
    expect(counted).toBeGreaterThan(0);
    expect(wall).toBeGreaterThan(counted);
    expect(body.slice(counted, wall)).toMatch(/\*\*more work\*\*/);
    expect(body.slice(counted, wall)).toContain("It cannot see time");
    expect(body.slice(counted, wall)).toContain("as installed on the runner (count-in: native)");
    expect(body.slice(wall)).not.toMatch(/\*\*(regressed|improved)\*\*/);
    expect(body.slice(wall)).toContain("**bench-1**");
    expect(action.summary).toContain("### Counted: instructions per request");

    const cli = await runCli(["comment", downloaded, "--repo", REPO, "--pr", "12", "--head-sha", HEAD_SHA], {
      GITHUB_TOKEN: server.token,
      GITHUB_API_URL: server.url,
    });
    expect(cli.stderr).not.toMatch(/error/i);
    expect(cli.code).toBe(0);
    const posted = server.comments(REPO, 12)[0]?.body ?? "";
    expect(visible(posted)).toBe(visible(body));
  });

  it("the same results given as separate folders make the same comment", async () => {
    server.addPull(REPO, { number: 13, sha: HEAD_SHA, ref: "third", headRepo: REPO });
    const cli = await runCli(
      [
        "comment",
        path.join(downloaded, "proxybench-results-1"),
        path.join(downloaded, "proxybench-instructions"),
        "--repo",
        REPO,
        "--pr",
        "13",
        "--head-sha",
        HEAD_SHA,
      ],
      { GITHUB_TOKEN: server.token, GITHUB_API_URL: server.url },
    );
    expect(cli.code).toBe(0);
    const posted = server.comments(REPO, 13)[0]?.body ?? "";
    expect(visible(posted)).toBe(visible(server.comments(REPO, 11)[0]?.body ?? ""));
  });
});
