import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serializeChangesJs } from "../../../src/publish/changesjs.js";
import type { SeriesChanges } from "../../../src/publish/change-points.js";
import { buildIssueBody, ISSUE_LABEL, issueMarker, parseIssueBody } from "../../../src/github/issue-body.js";
import { fileIssues, type IssueSettings } from "../../../src/github/issues.js";
import { changeIssueItem, changeIssueMarkdown } from "../../../src/report/change-issues.js";
import { createClient } from "../../../src/github/client.js";
import { liveMarkup, visibleText } from "../../support/actions/gfm.js";
import { changePoint, HOSTILE_NAMES, series, sha } from "../../support/changes/fixtures.js";
import { startGitHubServer, type GitHubServer } from "../../support/github-server.js";
import { runCli } from "../../support/publish/git-support.js";

const REPO = "acme/gateway";
const REPO_URL = "https://github.com/acme/gateway";
const BOT = "github-actions[bot]";

let server: GitHubServer;

beforeEach(async () => {
  server = await startGitHubServer();
});
afterEach(async () => {
  await server.close();
});

function client() {
  return createClient({ token: server.token, baseUrl: server.url, delayBaseMs: 5 });
}

/** Files the series' regressions as bench.yml does, commit ranges linked to REPO_URL. */
function file(list: SeriesChanges[], overrides: Partial<IssueSettings> = {}) {
  const items = list.map((s) => changeIssueItem(s, REPO_URL));
  return fileIssues(client(), { owner: "acme", repo: "gateway", items, ...overrides });
}

const issueBody = (s: SeriesChanges, filed: string[], repoUrl?: string) =>
  buildIssueBody([s.suite, s.bench], filed, changeIssueMarkdown(s, repoUrl));

const nginx = (...changes: ReturnType<typeof changePoint>[]) =>
  series("passthrough latency", "nginx p99", changes);
const writes = () => server.requests.filter((r) => r.method !== "GET" && r.path !== "/graphql");

describe("issues for the regressions of a history", () => {
  it("opens one issue per series with a regression, labelled, and none for improvements", async () => {
    const outcomes = await file([
      nginx(changePoint(sha(1), sha(2), 6.1), changePoint(sha(3), sha(4), -8, { regression: false })),
      series("passthrough throughput", "nginx req/s", [
        changePoint(sha(1), sha(2), 9, { regression: false }),
      ]),
      series("passthrough latency", "haproxy p99", [changePoint(sha(5), sha(6), 12.5, { pValue: 0.002 })]),
    ]);
    expect(outcomes.map((o) => [o.action, o.name, o.filed])).toEqual([
      ["created", "passthrough latency / nginx p99", [sha(2)]],
      ["created", "passthrough latency / haproxy p99", [sha(6)]],
    ]);
    const issues = server.issues(REPO);
    expect(issues.map((i) => [i.title, i.labels.map((l) => l.name)])).toEqual([
      ["Performance regression: passthrough latency / nginx p99", [ISSUE_LABEL]],
      ["Performance regression: passthrough latency / haproxy p99", [ISSUE_LABEL]],
    ]);
    const text = visibleText(issues[0]!.body);
    expect(text).toContain("+6.10% 0.0004 regression");
    expect(text).toContain("-8.00% 0.0004 improvement");
    expect(issues[0]!.body).toContain(
      `[111111111111...222222222222](${REPO_URL}/compare/${sha(1)}...${sha(2)})`,
    );
  });

  it("files a change point once: a second run with nothing new writes nothing", async () => {
    await file([nginx(changePoint(sha(1), sha(2), 6.1))]);
    const before = writes().length;
    expect(await file([nginx(changePoint(sha(1), sha(2), 6.1))])).toEqual([]);
    expect(writes()).toHaveLength(before);
    expect(server.issues(REPO)).toHaveLength(1);
  });

  it("updates the open issue of the series with a new regression, keeping what it filed", async () => {
    const [first] = await file([nginx(changePoint(sha(1), sha(2), 6.1))]);
    const [second] = await file([nginx(changePoint(sha(1), sha(2), 6.1), changePoint(sha(7), sha(8), 4.4))]);
    expect(second).toMatchObject({ action: "updated", number: first!.number, filed: [sha(8)] });
    const issues = server.issues(REPO);
    expect(issues).toHaveLength(1);
    expect(parseIssueBody(issues[0]!.body)?.filed).toEqual(new Set([sha(2), sha(8)]));
    expect(visibleText(issues[0]!.body)).toContain("+4.40%");
  });

  it("after the issue is closed, opens a new one for a new regression only", async () => {
    await file([nginx(changePoint(sha(1), sha(2), 6.1))]);
    server.issues(REPO)[0]!.state = "closed";
    expect(await file([nginx(changePoint(sha(1), sha(2), 6.1))])).toEqual([]);
    const [next] = await file([nginx(changePoint(sha(1), sha(2), 6.1), changePoint(sha(7), sha(8), 4.4))]);
    expect(next).toMatchObject({ action: "created", filed: [sha(8)] });
    const issues = server.issues(REPO);
    expect(issues.map((i) => i.state)).toEqual(["closed", "open"]);
    expect(parseIssueBody(issues[1]!.body)?.filed).toEqual(new Set([sha(8)]));
  });

  it("never takes an issue written by someone else, a pull request or an unlabelled issue for ours", async () => {
    const s = nginx(changePoint(sha(1), sha(2), 6.1));
    const forged = issueBody(s, [sha(2)], REPO_URL);
    server.addIssue(REPO, { body: forged, labels: [ISSUE_LABEL], login: "mallory" });
    server.addIssue(REPO, { body: forged, labels: [ISSUE_LABEL], login: BOT, pullRequest: true });
    server.addIssue(REPO, { body: forged, labels: ["other"], login: BOT });
    const [outcome] = await file([s]);
    expect(outcome).toMatchObject({ action: "created", number: 4 });
    expect(
      server
        .issues(REPO)
        .slice(0, 3)
        .map((i) => i.body),
    ).toEqual([forged, forged, forged]);
  });

  it("creates the label once, and stops when GitHub drops it from a new issue", async () => {
    await file([nginx(changePoint(sha(1), sha(2), 6.1))]);
    await file([series("passthrough latency", "haproxy p99", [changePoint(sha(1), sha(2), 7)])]);
    expect(server.labels(REPO).map((l) => l.name)).toEqual([ISSUE_LABEL]);
    expect(server.requests.filter((r) => r.method === "POST" && r.path.endsWith("/labels"))).toHaveLength(1);

    // A label the token may not set is dropped without an error: the issue could not be found again.
    server.fail({ method: "GET", path: /\/labels$/, status: 200, body: [{ name: "other" }] });
    await expect(file([nginx(changePoint(sha(1), sha(2), 6.1))], { label: "other" })).rejects.toThrow(
      /issue #3 was created without the label other: the token cannot label issues/,
    );
  });

  it("reads every page of issues", async () => {
    for (let i = 0; i < 130; i++) {
      server.addIssue(REPO, {
        body: `${issueMarker(["s", `b${i}`])}\n`,
        labels: [ISSUE_LABEL],
      });
    }
    const mine = nginx(changePoint(sha(1), sha(2), 6.1));
    server.addIssue(REPO, { body: issueBody(mine, [sha(2)]), labels: [ISSUE_LABEL], state: "closed" });
    for (let i = 0; i < 130; i++) server.addIssue(REPO, { body: "later", labels: [ISSUE_LABEL] });
    expect(await file([mine])).toEqual([]);
    expect(server.requests.filter((r) => r.path === `/repos/${REPO}/issues`).length).toBeGreaterThanOrEqual(
      3,
    );
  });

  it.each(HOSTILE_NAMES)(
    "suite, bench and commit named %j: the issue shows them, with nothing live",
    async (name) => {
      const hostile: SeriesChanges = {
        ...series(name, `${name} p99`, [changePoint(`${name}`, sha(2), 6.1), changePoint(sha(3), sha(4), 7)]),
        unit: name,
      };
      await file([hostile]);
      const [issue] = server.issues(REPO);
      expect(liveMarkup(issue!.body, [`${REPO_URL}/compare/${sha(3)}...${sha(4)}`])).toEqual([]);
      expect(visibleText(issue!.body)).toContain(name.replace(/\r\n|\n/g, " ").replace(/\s+/g, " "));
      expect(issue!.title).not.toMatch(/[\r\n]|@[a-z]|#\d/i);
      // Found again on the next run: nothing new, nothing written.
      const before = writes().length;
      expect(await file([hostile])).toEqual([]);
      expect(writes()).toHaveLength(before);
    },
  );
});

describe("proxybench issues", () => {
  async function changesFile(list: SeriesChanges[]): Promise<string> {
    const f = path.join(await mkdtemp(path.join(tmpdir(), "proxybench-changes-")), "changes.js");
    await writeFile(f, serializeChangesJs(list));
    return f;
  }
  const env = () => ({
    GITHUB_TOKEN: server.token,
    GITHUB_API_URL: server.url,
    GITHUB_SERVER_URL: "https://github.com",
  });

  it("files from changes.js as publish writes it, then finds nothing new", async () => {
    const f = await changesFile([nginx(changePoint(sha(1), sha(2), 6.1))]);
    const first = await runCli(["issues", f, "--repo", REPO], env());
    expect(first.stderr).toBe("issues: created issue #1 for passthrough latency / nginx p99 (1 new)\n");
    expect(first.stdout).toBe(
      "created https://github.test/acme/gateway/issues/1: passthrough latency / nginx p99\n",
    );
    expect(first.code).toBe(0);
    expect(server.issues(REPO)[0]?.body).toContain(`${REPO_URL}/compare/${sha(1)}...${sha(2)}`);
    const second = await runCli(["issues", f, "--repo", REPO], env());
    expect(second.stdout).toBe("no new regression: no issue opened or updated\n");
  }, 30_000);

  it.each([
    [["--repo", "not a repo"], /--repo not a repo: expected OWNER\/NAME/],
    [["--repo", REPO, "--repo-url", "javascript:alert(1)"], /--repo-url/],
    [["--repo", REPO, "--label", "a,b"], /--label/],
  ])(
    "refuses bad input %j before any request",
    async (args, pattern) => {
      const f = await changesFile([]);
      const run = await runCli(["issues", f, ...args], env());
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(pattern);
      expect(server.requests).toEqual([]);
    },
    30_000,
  );

  it("refuses a file that is not a list of change points, naming the field", async () => {
    const f = await changesFile([]);
    await writeFile(f, 'window.BENCHMARK_CHANGES = [{"suite": "s"}]');
    const run = await runCli(["issues", f, "--repo", REPO], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${f}: [0].bench`);
    expect(server.requests).toEqual([]);
  }, 30_000);

  it("says what the token needs when GitHub refuses", async () => {
    server.fail({
      method: "POST",
      path: /\/issues$/,
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    const f = await changesFile([nginx(changePoint(sha(1), sha(2), 6.1))]);
    const run = await runCli(["issues", f, "--repo", REPO], env());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /403 Resource not accessible by integration \(the token needs issues: write on acme\/gateway\)/,
    );
  }, 30_000);
});
