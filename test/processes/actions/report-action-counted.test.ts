import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInstructions } from "../../../src/measures/counted/run.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { startGitHubServer, type GitHubServer } from "../../support/github-server.js";
import { runReportAction } from "../../support/actions/report-action.js";

// The comment side of the fork-safe pair for counted runs (workflows/fork-comment.yml after the
// "proxybench instructions benchmark" caller): the bundled report action given the artifact of
// bench-instructions.yml, one real counted run holding the variants base and head (nginx under
// valgrind, about 10 s).
const REPO = "octo/proxy-config";
const PR = 9;
const HEAD_SHA = "5e1f0c0ffee0000000000000000000000000beef";
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";

/** What a fork's workflow_run carries: its branch and commit, no pull request (found by the head, or given). */
const FORK = "fork/proxy-config";
const forkRun = {
  workflow_run: {
    head_sha: HEAD_SHA,
    head_branch: "feature",
    head_repository: { full_name: FORK },
    pull_requests: [],
  },
  repository: { full_name: REPO },
};

let server: GitHubServer;
let tmp: string;
let run: string;

async function variant(name: string, headers: number): Promise<{ name: string; dir: string }> {
  const dir = path.join(tmp, "variants", name);
  await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(dir, "proxies", "nginx"), {
    recursive: true,
  });
  const conf = path.join(dir, "proxies", "nginx", "nginx.conf");
  const text = await readFile(conf, "utf8");
  const added = " proxy_set_header X-A a;".repeat(headers);
  await writeFile(conf, text.replace("proxy_set_header Host $http_host;", `$&${added}`));
  return { name, dir };
}

beforeAll(async () => {
  server = await startGitHubServer();
  tmp = await mkdtemp(path.join(os.tmpdir(), "pb-report-counted-"));
  run = path.join(tmp, "results");
  await runInstructions({
    proxies: ["nginx"],
    variants: [await variant("base", 0), await variant("head", 5)],
    repetitions: 2,
    requests: 200,
    warmupRequests: 20,
    cpus,
    out: run,
    log: () => undefined,
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const action = (inputs: Record<string, string>, name: string) =>
  runReportAction({ dir: tmp, apiUrl: server.url, repository: REPO }, inputs, forkRun, name);

describe("report action on a counted run (fork-safe pair)", () => {
  it("compares the run's variants and keeps its own sticky comment on the fork's pull request", async () => {
    server.addPull(REPO, { number: PR, sha: HEAD_SHA, ref: "feature", headRepo: FORK });
    const inputs = {
      results: run,
      "pr-number": String(PR),
      "head-sha": HEAD_SHA,
      marker: "proxybench-instructions",
      token: server.token,
    };
    const first = await action(inputs, "counted");
    expect(first.stdout).not.toMatch(/::error::/);
    expect(first.code).toBe(0);
    const comments = server.comments(REPO, PR);
    expect(comments).toHaveLength(1);
    const body = comments[0]?.body ?? "";
    expect(body).toMatch(/^<!-- proxybench:proxybench-instructions -->/);
    expect(body).toContain(`sha=${HEAD_SHA}`);
    expect(body).toMatch(/proxybench compare \(instructions\): [12] more work/);
    expect(body).toContain("Variants of one run: head against base.");
    expect(body).toMatch(/<details>\s*<summary>Where it went: passthrough · \*\*nginx\*\*/);
    expect(body).toContain("ngx\\_http\\_script\\_copy\\_code");
    expect(first.outputs.verdict).toBe("regressed");
    expect(Number(first.outputs.regressions)).toBeGreaterThanOrEqual(1);
    expect(first.summary).toContain("proxybench compare (instructions)");

    // A wall-clock comment on the same pull request is another marker: both stay.
    server.addComment(REPO, PR, "<!-- proxybench:proxybench -->\nwall-clock");
    expect((await action(inputs, "again")).code).toBe(0);
    expect(server.comments(REPO, PR)).toHaveLength(2);
  });

  it("a head whose cells failed: nothing compared is inconclusive, and fails with fail-on-regression", async () => {
    const failed = path.join(tmp, "failed-head");
    await cp(run, failed, { recursive: true });
    const file = path.join(failed, "instructions.json");
    const json = JSON.parse(await readFile(file, "utf8")) as {
      cells: Array<{ variant?: string; status: string; reasons?: string[] }>;
    };
    for (const c of json.cells.filter((c) => c.variant === "head")) {
      c.status = "failed";
      c.reasons = ["the proxy exited with code 1"];
    }
    await writeFile(file, JSON.stringify(json));
    const inputs = { results: failed, comment: "false", token: "", "fail-on-regression": "true" };
    const out = await action(inputs, "failed-head");
    expect(out.code).toBe(1);
    expect(out.outputs).toMatchObject({ verdict: "inconclusive", regressions: "0" });
    expect(out.stdout).toMatch(
      /::error::nothing was compared \(\d+ cells? not compared\) \(fail-on-regression is set\)/,
    );
  });

  it("refuses an artifact whose callgrind file points out of the results folder, naming the field", async () => {
    const evil = path.join(tmp, "evil");
    await cp(run, evil, { recursive: true });
    const file = path.join(evil, "instructions.json");
    const json = JSON.parse(await readFile(file, "utf8")) as {
      cells: Array<{ repetitions: Array<{ callgrindFile?: string }> }>;
    };
    const rep = json.cells[1]?.repetitions[0];
    if (rep) rep.callgrindFile = "../../../../../../etc/passwd";
    await writeFile(file, JSON.stringify(json));
    const before = server.comments(REPO, PR).length;
    const out = await action({ results: evil, "pr-number": String(PR), token: server.token }, "evil");
    expect(out.code).not.toBe(0);
    expect(out.stdout).toMatch(
      /::error::.*instructions\.json: callgrindFile '\.\.\/.*etc\/passwd' is not inside the results folder/,
    );
    expect(server.comments(REPO, PR)).toHaveLength(before);
  });
});
