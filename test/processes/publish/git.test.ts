import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseDataJs } from "../../../src/publish/datajs.js";
import { authEnv, isRaceRejection, resolveRemote } from "../../../src/publish/git.js";
import { displayRemote, publish } from "../../../src/publish/publish.js";
import { startGitHttpServer } from "../../support/publish/git-http-server.js";
import {
  bareRepo,
  checkout,
  gitIn,
  refOf,
  resultsFor,
  runCli,
  seedBranch,
} from "../../support/publish/git-support.js";

describe("publish to a real bare repository", () => {
  it("eight publishes at once: every entry lands, data.js parses, history is linear", async () => {
    const bare = await bareRepo();
    const shas = Array.from({ length: 8 }, (_, i) => `${String(i + 1).repeat(8)}${"0".repeat(32)}`);
    const dirs = await Promise.all(shas.map((sha, i) => resultsFor(sha, `change ${i + 1}`)));
    const runs = await Promise.all(
      dirs.map((dir) =>
        runCli([
          "publish",
          dir,
          "--repo",
          bare,
          "--push-retries",
          "30",
          "--repo-url",
          "https://github.com/o/r",
        ]),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    // How often pushes lost the race (informative: depends on scheduling, not asserted).
    const attempts = runs.map((r) => Number(/\((\d+) attempts?\)/.exec(r.stdout)?.[1] ?? 0));
    console.log(`eight concurrent publishes: attempts per process ${attempts.join(", ")}`);

    const work = await checkout(bare, "gh-pages");
    const text = await readFile(path.join(work, "dev/bench/data.js"), "utf8");
    const data = parseDataJs(text, "data.js");
    for (const suite of ["small-json throughput", "small-json latency", "echo-1k (100vus) throughput"]) {
      expect(data.entries[suite]?.map((e) => e.commit.id).sort()).toEqual([...shas].sort());
    }
    expect(data.repoUrl).toBe("https://github.com/o/r");
    expect(existsSync(path.join(work, "dev/bench/index.html"))).toBe(true);
    expect(existsSync(path.join(work, "dev/bench/chart.umd.min.js"))).toBe(true);

    // One commit per publish, no merges, and every value the ref ever took is an ancestor of the
    // final one: nothing was force-pushed away.
    const final = (await refOf(bare, "gh-pages"))!;
    const commits = (await gitIn(bare, "rev-list", final)).trim().split("\n");
    expect(commits).toHaveLength(8);
    expect((await gitIn(bare, "rev-list", "--merges", final)).trim()).toBe("");
    const history = (await gitIn(bare, "reflog", "show", "--format=%H", "refs/heads/gh-pages"))
      .trim()
      .split("\n");
    expect(history.length).toBeGreaterThanOrEqual(8);
    for (const value of history) {
      await expect(gitIn(bare, "merge-base", "--is-ancestor", value, final)).resolves.toBeDefined();
    }
  }, 180_000);

  it("a corrupt data.js on the branch stops the publish: non-zero exit, error names it, remote unchanged", async () => {
    const bare = await bareRepo();
    await seedBranch(bare, "gh-pages", {
      "dev/bench/data.js": 'window.BENCHMARK_DATA = {"lastUpdate": 1, "entries": {',
    });
    const before = await refOf(bare, "gh-pages");

    const dir = await resultsFor("a".repeat(40), "x");
    const run = await runCli(["publish", dir, "--repo", bare]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("gh-pages:dev/bench/data.js");
    expect(run.stderr).toMatch(/does not parse \(.*\); refusing to overwrite it/);
    expect(await refOf(bare, "gh-pages")).toBe(before);
  }, 60_000);

  it("leaves an index.html that is not ours in place and trims with --max-items", async () => {
    const bare = await bareRepo();
    await seedBranch(bare, "gh-pages", { "bench/index.html": "<html>their page</html>" });

    for (let i = 0; i < 3; i++) {
      const outcome = await publish({
        resultsDir: await resultsFor(`${i}`.repeat(40), `run ${i}`),
        remote: bare,
        branch: "gh-pages",
        dir: "bench",
        maxItems: 2,
        retries: 0,
        context: {},
      });
      expect(outcome.keptForeignPage).toBe(true);
    }
    const work = await checkout(bare, "gh-pages");
    expect(await readFile(path.join(work, "bench/index.html"), "utf8")).toBe("<html>their page</html>");
    const data = parseDataJs(await readFile(path.join(work, "bench/data.js"), "utf8"), "data.js");
    expect(data.entries["small-json latency"]?.map((e) => e.commit.id)).toEqual([
      "1".repeat(40),
      "2".repeat(40),
    ]);
  }, 60_000);
});

describe("git helpers", () => {
  it.each([
    [" ! [rejected]        HEAD -> gh-pages (fetch first)", true],
    [
      "! [remote rejected] HEAD -> gh-pages (cannot lock ref 'refs/heads/gh-pages': is at 1234abcd but expected 5678)",
      true,
    ],
    [
      "error: failed to push some refs\nhint: Updates were rejected because the tip ... non-fast-forward",
      true,
    ],
    [
      "remote: Permission to o/r.git denied to user.\nfatal: unable to access: The requested URL returned error: 403",
      false,
    ],
    ["fatal: 'nowhere' does not appear to be a git repository", false],
  ])("isRaceRejection(%j) is %s", (text, expected) => {
    expect(isRaceRejection(text)).toBe(expected);
  });

  it("passes a token as an extra header in the environment, after the caller's own config", () => {
    expect(authEnv(undefined)).toEqual({});
    const env = authEnv("s3cret", { GIT_CONFIG_COUNT: "1" });
    expect(env.GIT_CONFIG_COUNT).toBe("2");
    expect(env.GIT_CONFIG_KEY_1).toBe("http.extraheader");
    expect(env.GIT_CONFIG_VALUE_1).toBe(
      `AUTHORIZATION: basic ${Buffer.from("x-access-token:s3cret").toString("base64")}`,
    );
  });
});

describe("publish over HTTP with a token", () => {
  it("sends GITHUB_TOKEN as a header, never printed nor left in a config", async () => {
    const bare = await bareRepo();
    const root = path.dirname(bare);
    const token = `ghs_${"x".repeat(20)}secret`;
    const server = await startGitHttpServer(root, token);
    try {
      const remote = `${server.url}/${path.basename(bare)}`;
      const results = await resultsFor("d".repeat(40), "over http");
      const ok = await runCli(["publish", results, "--repo", remote], { GITHUB_TOKEN: token });
      expect(ok.code, ok.stderr).toBe(0);
      expect(await refOf(bare, "gh-pages")).toBeDefined();
      expect(server.authHeaders.length).toBeGreaterThan(0);
      expect(server.authHeaders.every((h) => h !== "")).toBe(true);
      expect(ok.stdout + ok.stderr).not.toContain("secret");

      const before = await refOf(bare, "gh-pages");
      const denied = await runCli(["publish", results, "--repo", remote], {
        GITHUB_TOKEN: "wrong-secret-token",
      });
      expect(denied.code).toBe(1);
      expect(denied.stderr).toMatch(/git fetch failed/);
      expect(denied.stderr).not.toContain("wrong-secret-token");
      expect(denied.stderr).not.toMatch(/at .*\.js:\d+/);
      expect(await refOf(bare, "gh-pages")).toBe(before);
      // The bare repo's own config never saw the header.
      expect(await readFile(path.join(bare, "config"), "utf8")).not.toMatch(/extraheader/i);
    } finally {
      await server.close();
    }
  }, 60_000);

  it.each([
    ["https://github.com/o/r.git", "https://github.com/o/r.git"],
    ["git@github.com:o/r.git", "git@github.com:o/r.git"],
    ["file:///srv/r.git", "file:///srv/r.git"],
    ["repo.git", "/work/dir/repo.git"],
    ["../up/r.git", "/work/up/r.git"],
  ])("resolveRemote(%s)", (remote, expected) => {
    expect(resolveRemote(remote, "/work/dir")).toBe(expected);
  });

  it.each([
    ["https://user:tok@github.com/o/r.git", "https://github.com/o/r.git"],
    ["https://github.com/o/r.git", "https://github.com/o/r.git"],
    ["/srv/r.git", "/srv/r.git"],
  ])("displayRemote(%s)", (remote, expected) => {
    expect(displayRemote(remote)).toBe(expected);
  });
});
