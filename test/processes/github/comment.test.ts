import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMMENT_LIMIT, commentMarker, headMarker, parseHead } from "../../../src/github/body.js";
import { createClient } from "../../../src/github/client.js";
import {
  isOwnComment,
  upsertStickyComment,
  type StickyCommentSettings,
} from "../../../src/github/comment.js";
import { readRefusal } from "../../../src/github/refusal.js";
import { runCli } from "../../support/publish/git-support.js";
import { RESULTS_DIR } from "../../support/publish/fixtures.js";
import {
  SECONDARY_RATE_LIMIT_MESSAGE,
  startGitHubServer,
  type GitHubServer,
} from "../../support/github-server.js";

const REPO = "acme/gateway";
const SHA_OLD = "a".repeat(40);
const SHA_NEW = "b".repeat(40);

let server: GitHubServer;

beforeEach(async () => {
  server = await startGitHubServer();
});
afterEach(async () => {
  await server.close();
});

function client(token = server.token) {
  return createClient({ token, baseUrl: server.url, delayBaseMs: 5 });
}

function settings(overrides: Partial<StickyCommentSettings> = {}): StickyCommentSettings {
  return {
    owner: "acme",
    repo: "gateway",
    pr: 7,
    markdown: "## Report\n\n| a | b |\n| - | - |\n| 1 | 2 |\n",
    id: "proxybench",
    head: { sha: SHA_OLD, time: "2026-11-20T10:00:00Z" },
    ...overrides,
  };
}

const BOT = "github-actions[bot]";

const marked = (sha: string, time: string, text = "old report") =>
  `${commentMarker("proxybench")}\n${headMarker("proxybench", { sha, time })}\n${text}`;

describe("sticky comment against a local GitHub API", () => {
  it("creates on the first run and updates the same comment on the second", async () => {
    const first = await upsertStickyComment(client(), settings());
    expect(first.action).toBe("created");
    const second = await upsertStickyComment(client(), settings({ markdown: "## Report v2\n" }));
    expect(second.action).toBe("updated");
    expect(second.commentId).toBe(first.commentId);
    const comments = server.comments(REPO, 7);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain("## Report v2");
    expect(parseHead(comments[0]?.body, "proxybench")).toEqual({
      sha: SHA_OLD,
      time: "2026-11-20T10:00:00.000Z",
    });
    expect(server.requests.every((r) => r.authorized)).toBe(true);
  });

  it("keeps the oldest of several marked comments and deletes the others", async () => {
    server.addComment(REPO, 7, "a human comment");
    const oldest = server.addComment(REPO, 7, marked(SHA_OLD, "2026-11-20T09:00:00Z"), "github-actions[bot]");
    server.addComment(REPO, 7, marked(SHA_OLD, "2026-11-20T09:00:00Z"), "github-actions[bot]");
    server.addComment(REPO, 7, marked(SHA_OLD, "2026-11-20T09:00:00Z"), "github-actions[bot]");
    server.addComment(REPO, 7, `quoting: ${commentMarker("proxybench")}`);
    const outcome = await upsertStickyComment(client(), settings());
    expect(outcome.action).toBe("updated");
    expect(outcome.commentId).toBe(oldest.id);
    expect(outcome.deleted).toHaveLength(2);
    const bodies = server.comments(REPO, 7).map((c) => c.body);
    expect(bodies).toHaveLength(3);
    expect(bodies.filter((b) => b.startsWith(commentMarker("proxybench")))).toHaveLength(1);
    expect(bodies).toContain("a human comment");
  });

  it("when another run created the comment at the same moment, keeps the older one", async () => {
    let played = false;
    server.onRequest(({ method, path: where }) => {
      if (method === "POST" && where.endsWith("/comments") && !played) {
        played = true;
        server.addComment(
          REPO,
          7,
          marked(SHA_OLD, "2026-11-20T09:00:00Z", "the other run"),
          "github-actions[bot]",
        );
      }
    });
    const outcome = await upsertStickyComment(client(), settings({ markdown: "## ours\n" }));
    expect(outcome.action).toBe("updated");
    expect(outcome.deleted).toHaveLength(1);
    const comments = server.comments(REPO, 7);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.id).toBe(outcome.commentId);
    expect(comments[0]?.body).toContain("## ours");
  });

  it("finds the marker on the second page of more than 100 comments", async () => {
    for (let i = 0; i < 130; i++) server.addComment(REPO, 7, `comment ${i}`);
    const ours = server.addComment(REPO, 7, marked(SHA_OLD, "2026-11-20T09:00:00Z"), BOT);
    const outcome = await upsertStickyComment(client(), settings());
    expect(outcome).toMatchObject({ action: "updated", commentId: ours.id });
    const pages = server.requests.filter((r) => r.method === "GET" && r.path.endsWith("/issues/7/comments"));
    expect(pages.map((r) => r.query.page ?? "1")).toEqual(["1", "2"]);
    expect(pages.every((r) => r.query.per_page === "100")).toBe(true);
    expect(server.comments(REPO, 7)).toHaveLength(131);
  });

  it("retries a 403 secondary rate limit after its retry-after, and a 502", async () => {
    server.fail({ method: "GET", path: /\/comments$/, status: 502, body: { message: "Server Error" } });
    server.fail({
      method: "POST",
      path: /\/comments$/,
      status: 403,
      headers: { "retry-after": "2" },
      body: { message: SECONDARY_RATE_LIMIT_MESSAGE },
    });
    const outcome = await upsertStickyComment(client(), settings());
    expect(outcome.action).toBe("created");
    expect(server.pendingFaults()).toEqual([]);
    const log = server.requests.map((r) => `${r.method} ${r.status}`);
    // The first request asks GraphQL who the token is.
    expect(log).toEqual(["POST 200", "GET 502", "GET 200", "POST 403", "POST 201", "GET 200"]);
    expect(server.comments(REPO, 7)).toHaveLength(1);
  });

  it("retries a secondary rate limit that gives no retry-after, and a 429", async () => {
    server.fail({ method: "GET", status: 403, body: { message: SECONDARY_RATE_LIMIT_MESSAGE } });
    server.fail({
      method: "POST",
      path: /\/comments$/,
      status: 429,
      headers: { "retry-after": "1" },
      body: { message: SECONDARY_RATE_LIMIT_MESSAGE },
    });
    const outcome = await upsertStickyComment(client(), settings());
    expect(outcome.action).toBe("created");
    expect(server.requests.map((r) => `${r.method} ${r.status}`)).toEqual([
      "POST 200",
      "GET 403",
      "GET 200",
      "POST 429",
      "POST 201",
      "GET 200",
    ]);
  });

  it("leaves a comment written for the pull request's newer head alone", async () => {
    server.setPullHead(REPO, 7, SHA_NEW);
    const theirs = server.addComment(REPO, 7, marked(SHA_NEW, "2026-11-20T08:00:00Z", "newer report"), BOT);
    const outcome = await upsertStickyComment(client(), settings());
    expect(outcome.action).toBe("skipped");
    expect(outcome.commentId).toBe(theirs.id);
    expect(outcome.reason).toMatch(/current head/);
    expect(server.comments(REPO, 7)[0]?.body).toContain("newer report");
    expect(server.requests.filter((r) => r.method !== "GET" && r.path !== "/graphql")).toEqual([]);
  });

  it("without the pull request's head, keeps a comment for a later commit time", async () => {
    server.addComment(REPO, 7, marked(SHA_NEW, "2026-11-20T11:00:00Z", "newer report"), BOT);
    const skipped = await upsertStickyComment(client(), settings());
    expect(skipped.action).toBe("skipped");
    expect(skipped.reason).toMatch(/newer commit/);
    // A later commit replaces it.
    const later = await upsertStickyComment(
      client(),
      settings({ head: { sha: "c".repeat(40), time: "2026-11-20T12:00:00Z" } }),
    );
    expect(later.action).toBe("updated");
  });

  it("replaces a comment for an older head when ours is the pull request's head", async () => {
    server.setPullHead(REPO, 7, SHA_OLD);
    server.addComment(REPO, 7, marked(SHA_NEW, "2026-11-21T00:00:00Z"), BOT);
    const outcome = await upsertStickyComment(client(), settings());
    expect(outcome.action).toBe("updated");
  });

  it("cuts a 70,000-character report to fit, with a note and the details link", async () => {
    const row = "| nginx | 12,345.67 | +1.00% |\n";
    const markdown = `## Report\n\n${row.repeat(Math.ceil(70_000 / row.length))}`;
    expect(markdown.length).toBeGreaterThan(70_000);
    const outcome = await upsertStickyComment(
      client(),
      settings({ markdown, detailsUrl: "https://github.com/acme/gateway/actions/runs/42" }),
    );
    expect(outcome).toMatchObject({ action: "created", truncated: true });
    const body = server.comments(REPO, 7)[0]!.body;
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body).toContain("65,536-character comment limit");
    expect(body).toContain("(https://github.com/acme/gateway/actions/runs/42)");
    expect(body.startsWith(commentMarker("proxybench"))).toBe(true);
    // Cut on a row boundary: the last table row before the note is whole.
    const beforeNote = body.slice(0, body.indexOf("\n\n---\n"));
    expect(beforeNote.endsWith("+1.00% |")).toBe(true);
  });

  it("never edits, deletes or obeys a comment by someone else that carries the marker", async () => {
    server.setPullHead(REPO, 7, SHA_NEW);
    // Older than ours would be, and claiming the pull request's newest head: by marker alone it
    // would be kept as the sticky comment (ours deleted) or would make the report skip.
    const planted = [
      server.addComment(REPO, 7, marked(SHA_NEW, "2026-11-21T00:00:00Z", "planted"), "mallory"),
      server.addComment(REPO, 7, marked(SHA_NEW, "2026-11-21T00:00:00Z", "planted 2"), "mallory[bot]"),
    ];
    const outcome = await upsertStickyComment(
      client(),
      settings({ head: { sha: SHA_NEW, time: "2026-11-21T01:00:00Z" } }),
    );
    expect(outcome.action).toBe("created");
    expect(outcome.deleted).toEqual([]);
    const comments = server.comments(REPO, 7);
    expect(comments.map((c) => [c.user.login, c.body.includes("planted")])).toEqual([
      ["mallory", true],
      ["mallory[bot]", true],
      [BOT, false],
    ]);
    expect(comments.slice(0, 2).map((c) => c.body)).toEqual(planted.map((c) => c.body));
    // The next run updates ours, still leaving theirs alone.
    const again = await upsertStickyComment(
      client(),
      settings({ head: { sha: SHA_NEW, time: "2026-11-21T01:00:00Z" } }),
    );
    expect(again).toMatchObject({ action: "updated", commentId: outcome.commentId, deleted: [] });
    expect(server.comments(REPO, 7)).toHaveLength(3);
  });

  it("with a personal token, the comments of that user are its own", async () => {
    const pat = await startGitHubServer({ login: "octocat" });
    try {
      const ours = pat.addComment(REPO, 7, marked(SHA_OLD, "2026-11-20T09:00:00Z"), "octocat");
      pat.addComment(REPO, 7, marked(SHA_OLD, "2026-11-20T09:00:00Z"), BOT);
      const outcome = await upsertStickyComment(
        createClient({ token: pat.token, baseUrl: pat.url, delayBaseMs: 5 }),
        settings(),
      );
      expect(outcome).toMatchObject({ action: "updated", commentId: ours.id, deleted: [] });
      expect(pat.comments(REPO, 7)).toHaveLength(2);
    } finally {
      await pat.close();
    }
  });

  it("says so when GraphQL cannot name the token's account", async () => {
    server.fail({
      method: "POST",
      path: /^\/graphql$/,
      status: 200,
      body: { errors: [{ message: "nope" }] },
    });
    await expect(upsertStickyComment(client(), settings())).rejects.toThrow(
      /cannot tell which account the token belongs to \(GraphQL viewer: [\s\S]*nope/,
    );
    expect(server.requests.filter((r) => r.path.endsWith("/comments"))).toEqual([]);
  });

  it.each<[{ login?: string; type?: string } | null, string, boolean]>([
    [{ login: "github-actions[bot]", type: "Bot" }, "github-actions[bot]", true],
    [{ login: "GitHub-Actions[bot]", type: "Bot" }, "github-actions[bot]", true],
    // A viewer login given without "[bot]": the app's bot account is still the app.
    [{ login: "github-actions[bot]", type: "Bot" }, "github-actions", true],
    // A person whose login is the app's name: never the app, whatever a login's spelling.
    [{ login: "github-actions", type: "User" }, "github-actions[bot]", false],
    [{ login: "proxybench-app", type: "User" }, "proxybench-app[bot]", false],
    [{ login: "octocat", type: "User" }, "octocat", true],
    [{ login: "octocat", type: "Bot" }, "octocat[bot]", false],
    [{ login: "mallory", type: "User" }, "github-actions[bot]", false],
    [{ type: "User" }, "github-actions[bot]", false],
    [null, "github-actions[bot]", false],
    [{ login: "", type: "User" }, "", false],
  ])("isOwnComment(%j, %j) is %j", (user, account, expected) => {
    expect(isOwnComment(user, account)).toBe(expected);
  });

  it("with an app's token, a person whose login is the app's name is not the app", async () => {
    const app = await startGitHubServer({ login: "proxybench-app[bot]" });
    try {
      app.setPullHead(REPO, 7, SHA_NEW);
      // Claims the pull request's newest head: taken as the app's, it would make the report skip.
      const planted = app.addComment(
        REPO,
        7,
        marked(SHA_NEW, "2026-11-21T00:00:00Z", "planted"),
        "proxybench-app",
      );
      expect(planted.user).toEqual({ login: "proxybench-app", type: "User" });
      const outcome = await upsertStickyComment(
        createClient({ token: app.token, baseUrl: app.url, delayBaseMs: 5 }),
        settings({ head: { sha: SHA_NEW, time: "2026-11-21T01:00:00Z" } }),
      );
      expect(outcome).toMatchObject({ action: "created", deleted: [] });
      const comments = app.comments(REPO, 7);
      expect(comments.map((c) => [c.user.login, c.user.type])).toEqual([
        ["proxybench-app", "User"],
        ["proxybench-app[bot]", "Bot"],
      ]);
      expect(comments[0]?.body).toBe(planted.body);
      expect(app.requests.filter((r) => r.method === "PATCH" || r.method === "DELETE")).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it("reports a rejected token as an error", async () => {
    await expect(upsertStickyComment(client("wrong"), settings())).rejects.toMatchObject({ status: 401 });
  });
});

describe("readRefusal: what GitHub's 403 (or 429) means", () => {
  const SAML =
    "Resource protected by organization SAML enforcement. You must grant your Personal Access token access to this organization.";
  it.each<[string, number, Record<string, string>, string, Record<string, string>]>([
    [
      "a read-only installation token",
      403,
      {},
      "Resource not accessible by integration",
      { kind: "read-only" },
    ],
    [
      "a fine-grained token without the permission",
      403,
      {},
      "Resource not accessible by personal access token",
      { kind: "read-only" },
    ],
    [
      "a locked pull request",
      403,
      {},
      "Unable to create comment because issue is locked.",
      { kind: "locked" },
    ],
    [
      "the primary rate limit",
      403,
      { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1800000000" },
      "API rate limit exceeded for installation ID 1.",
      { kind: "rate-limited", until: "resets at 2027-01-15T08:00:00.000Z" },
    ],
    [
      "a secondary rate limit",
      403,
      { "retry-after": "30" },
      SECONDARY_RATE_LIMIT_MESSAGE,
      { kind: "rate-limited", until: "retry after 30 s" },
    ],
    [
      "a secondary rate limit without retry-after",
      403,
      {},
      SECONDARY_RATE_LIMIT_MESSAGE,
      { kind: "rate-limited" },
    ],
    ["429", 429, {}, "Too many requests", { kind: "rate-limited" }],
    ["another refusal", 403, {}, SAML, { kind: "forbidden" }],
  ])("%s", async (_what, status, headers, message, expected) => {
    server.fail({ method: "POST", path: /\/comments$/, status, headers, body: { message } });
    const github = createClient({ token: server.token, baseUrl: server.url, delayBaseMs: 1, retries: 0 });
    const err = await github.rest.issues
      .createComment({ owner: "acme", repo: "gateway", issue_number: 7, body: "x" })
      .catch((e: unknown) => e);
    expect(readRefusal(err)).toEqual({ status, message, ...expected });
  });

  it("is undefined for anything but a refusal", async () => {
    const github = createClient({ token: server.token, baseUrl: server.url, delayBaseMs: 1, retries: 0 });
    const err = await github.rest.pulls
      .get({ owner: "acme", repo: "gateway", pull_number: 404 })
      .catch((e: unknown) => e);
    expect((err as { status?: number }).status).toBe(404);
    expect(readRefusal(err)).toBeUndefined();
    expect(readRefusal(new Error("socket hang up"))).toBeUndefined();
  });
});

describe("proxybench comment (the CLI)", () => {
  it("posts the report of a results directory, then updates it, and writes the job summary", async () => {
    const summary = path.join(await mkdtemp(path.join(tmpdir(), "proxybench-summary-")), "summary.md");
    await writeFile(summary, "");
    const env = {
      GITHUB_TOKEN: server.token,
      GITHUB_API_URL: server.url,
      GITHUB_STEP_SUMMARY: summary,
    };
    const args = [
      "comment",
      RESULTS_DIR,
      "--repo",
      REPO,
      "--pr",
      "7",
      "--details-url",
      "https://example.org/run/1",
    ];
    const first = await runCli(args, env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^created /);
    const second = await runCli(args, env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^updated /);
    const comments = server.comments(REPO, 7);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain("small-json");
    expect(parseHead(comments[0]?.body, "proxybench")?.sha).toBe("3f2c9a1b7d4e5f60718293a4b5c6d7e8f9012345");
    const written = await readFile(summary, "utf8");
    expect(written).toContain("small-json");
    expect(written).not.toContain(commentMarker("proxybench"));
  }, 60_000);

  it.each([
    [["--pr", "7"], /--repo/],
    [["--repo", "acme", "--pr", "7", "--markdown", "x.md"], /--repo acme: expected OWNER\/NAME/],
    [
      ["--repo", REPO, "--pr", "0", "--markdown", "x.md"],
      /'--pr <number>' argument '0' is invalid. '0' is not a pull request number/,
    ],
    [["--repo", REPO, "--pr", "7"], /either RESULTS_DIR or --markdown/],
    [
      ["--repo", REPO, "--pr", "7", "--markdown", "x.md", "--details-url", "javascript:alert(1)"],
      /--details-url/,
    ],
    [["--repo", REPO, "--pr", "7", "--markdown", "x.md", "--marker", "a b"], /--marker/],
    [["--repo", REPO, "--pr", "7", "--markdown", "missing.md"], /--markdown missing\.md: cannot read/],
  ])("refuses bad input %j", async (args, pattern) => {
    const run = await runCli(["comment", ...args], {
      GITHUB_TOKEN: server.token,
      GITHUB_API_URL: server.url,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(pattern);
    expect(server.requests).toEqual([]);
  });

  it("says which token failed without printing it", async () => {
    const md = path.join(await mkdtemp(path.join(tmpdir(), "proxybench-md-")), "r.md");
    await writeFile(md, "# hello\n");
    const run = await runCli(["comment", "--markdown", md, "--repo", REPO, "--pr", "7"], {
      GITHUB_TOKEN: "not-the-token",
      GITHUB_API_URL: server.url,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/401/);
    expect(run.stderr).toMatch(/GITHUB_TOKEN rejected/);
    expect(run.stderr).not.toContain("not-the-token");
  }, 30_000);
});
