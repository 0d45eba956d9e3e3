import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commitContextFromEnv } from "../../../src/commands/publish.js";
import { commitInfo } from "../../../src/publish/entries.js";
import { usernamesFromEvent, usernamesFromEventFile } from "../../../src/publish/event.js";
import { results } from "../../support/report/build.js";

const push = {
  ref: "refs/heads/main",
  head_commit: {
    id: "abc",
    author: { name: "Ada", email: "ada@example.com", username: "ada" },
    committer: { name: "GitHub", email: "noreply@github.com", username: "web-flow" },
  },
};
const pullRequest = { pull_request: { number: 7, head: { sha: "def", user: { login: "grace" } } } };

describe("usernames for github-action-benchmark's 'committed by @user'", () => {
  it("a push gives the head commit's author and committer, a pull request its head user", () => {
    expect(usernamesFromEvent(push)).toEqual({ author: "ada", committer: "web-flow" });
    expect(usernamesFromEvent(pullRequest)).toEqual({ author: "grace", committer: "grace" });
    expect(usernamesFromEvent({ schedule: "0 3 * * *" })).toEqual({});
    expect(usernamesFromEventFile("/nonexistent/event.json")).toEqual({});
  });

  it("publish reads GITHUB_EVENT_PATH and the entry's author and committer carry a username", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "pb-event-"));
    const file = path.join(dir, "event.json");
    await writeFile(file, JSON.stringify(push));
    const context = commitContextFromEnv({ GITHUB_REPOSITORY: "o/r", GITHUB_EVENT_PATH: file });
    expect(context).toMatchObject({ authorUsername: "ada", committerUsername: "web-flow" });
    const commit = commitInfo(results([]), context);
    expect(commit.author.username).toBe("ada");
    expect(commit.committer.username).toBe("web-flow");
  });

  it("without an event, no username is invented", () => {
    const commit = commitInfo(results([]), commitContextFromEnv({}));
    expect(commit.author).not.toHaveProperty("username");
    expect(commit.committer).not.toHaveProperty("username");
  });
});
