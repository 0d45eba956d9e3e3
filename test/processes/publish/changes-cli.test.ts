import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseChanges } from "../../../src/publish/changesjs.js";
import { serializeDataJs } from "../../../src/publish/datajs.js";
import { publish } from "../../../src/publish/publish.js";
import { launchBrowser } from "../../support/browser.js";
import { commitId, historyOf, wobble } from "../../support/changes/history.js";
import { startGitHubServer, type GitHubServer } from "../../support/github-server.js";
import {
  bareRepo,
  checkout,
  refOf,
  resultsFor,
  runCli,
  seedBranch,
} from "../../support/publish/git-support.js";

/** A history whose nginx p99 steps up 10% at commit 12 (noise 1%), its rate flat. */
function steppedHistory(): string {
  const p99 = Array.from({ length: 24 }, (_, i) => wobble(i < 12 ? 10 : 11, 0.01, i));
  const rps = Array.from({ length: 24 }, (_, i) => wobble(20_000, 0.01, i));
  return serializeDataJs(
    historyOf([
      { suite: "passthrough latency", bench: "nginx p99", values: p99 },
      { suite: "passthrough throughput", bench: "nginx req/s", biggerIsBetter: true, values: rps },
    ]),
  );
}

let server: GitHubServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  server = await startGitHubServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await server?.close();
  await browser?.close();
});

describe("publish --changes, then issues, with the real Apache Otava", () => {
  it("marks the step on the page and files one issue for it", async () => {
    const bare = await bareRepo();
    await seedBranch(bare, "gh-pages", { "dev/bench/data.js": steppedHistory() });
    const out = path.join(await mkdtemp(path.join(tmpdir(), "proxybench-changes-out-")), "changes.json");
    const results = await resultsFor("f".repeat(40), "the newest commit");
    const args = ["publish", results, "--repo", bare, "--repo-url", "https://github.com/o/r"];
    const run = await runCli([...args, "--changes", "--changes-out", out]);
    expect(run.stderr).toContain("publish: changes.js: 1 change points (1 regressions) in");
    expect(run.code).toBe(0);

    const found = parseChanges(await readFile(out, "utf8"), out);
    const p99 = found.find((s) => s.bench === "nginx p99");
    expect(p99?.changes).toMatchObject([
      { before: { id: commitId(11) }, after: { id: commitId(12) }, regression: true },
    ]);
    expect(p99?.changes[0]?.changePct).toBeCloseTo(10, 0);
    const pages = path.join(await checkout(bare, "gh-pages"), "dev/bench");
    expect(parseChanges(await readFile(path.join(pages, "changes.js"), "utf8"), "changes.js")).toEqual(found);

    const page = await browser.browser.newPage({ viewport: { width: 1100, height: 900 } });
    await page.goto(pathToFileURL(path.join(pages, "index.html")).href);
    await page.waitForFunction(() =>
      Array.isArray((window as { proxybenchCharts?: unknown[] }).proxybenchCharts),
    );
    const link = page.locator(".changes a");
    expect(await link.getAttribute("href")).toBe(
      `https://github.com/o/r/compare/${commitId(11)}...${commitId(12)}`,
    );
    await mkdir("test-output", { recursive: true });
    await page.locator("section", { has: link }).screenshot({ path: "test-output/changes-chart-otava.png" });
    await page.close();

    const env = {
      GITHUB_TOKEN: server.token,
      GITHUB_API_URL: server.url,
      GITHUB_SERVER_URL: "https://github.com",
    };
    const filed = await runCli(["issues", out, "--repo", "o/r"], env);
    expect(filed.code).toBe(0);
    expect(filed.stdout).toBe("created https://github.test/o/r/issues/1: passthrough latency / nginx p99\n");
    expect(server.issues("o/r")[0]?.body).toContain(
      `(https://github.com/o/r/compare/${commitId(11)}...${commitId(12)})`,
    );
  }, 120_000);

  it("refuses --changes-out without --changes", async () => {
    const run = await runCli(["publish", "results", "--repo", "x", "--changes-out", "c.json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--changes-out c.json: only with --changes");
  }, 30_000);

  it("a finder that fails costs the marks, never the history: data.js pushed, changes.js kept", async () => {
    const bare = await bareRepo();
    await seedBranch(bare, "gh-pages", { "dev/bench/changes.js": "window.BENCHMARK_CHANGES = []\n" });
    const before = await refOf(bare, "gh-pages");
    const outcome = await publish({
      resultsDir: await resultsFor("e".repeat(40), "x"),
      remote: bare,
      branch: "gh-pages",
      dir: "dev/bench",
      retries: 0,
      context: {},
      findChanges: () => Promise.reject(new Error("Apache Otava is not installed")),
    });
    expect(outcome).toMatchObject({ pushed: true, changesError: "Apache Otava is not installed" });
    expect(outcome.changes).toBeUndefined();
    expect(await refOf(bare, "gh-pages")).not.toBe(before);
    const work = path.join(await checkout(bare, "gh-pages"), "dev/bench");
    expect(await readFile(path.join(work, "changes.js"), "utf8")).toBe("window.BENCHMARK_CHANGES = []\n");
    expect(await readFile(path.join(work, "data.js"), "utf8")).toContain("e".repeat(40));
  }, 60_000);
});
