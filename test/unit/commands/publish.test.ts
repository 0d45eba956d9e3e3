import { describe, expect, it } from "vitest";
import { commitContextFromEnv, publishSettings } from "../../../src/commands/publish.js";

const flags = { repo: "/srv/pages.git", branch: "gh-pages", dir: "dev/bench/", retries: 10 };

describe("publish settings", () => {
  it.each([
    [{}, undefined, { repoUrl: undefined, sha: undefined }],
    [
      { GITHUB_REPOSITORY: "o/r", GITHUB_SHA: "abc" },
      undefined,
      { repoUrl: "https://github.com/o/r", sha: "abc" },
    ],
    [
      { GITHUB_REPOSITORY: "o/r", GITHUB_SERVER_URL: "https://ghe.example.com/" },
      undefined,
      { repoUrl: "https://ghe.example.com/o/r", sha: undefined },
    ],
    [
      { GITHUB_REPOSITORY: "o/r" },
      "https://github.com/fork/r",
      { repoUrl: "https://github.com/fork/r", sha: undefined },
    ],
  ])("commit context from %j and --repo-url %s", (env, repoUrl, expected) => {
    expect(commitContextFromEnv(env, repoUrl)).toEqual(expected);
  });

  it("takes the token from GITHUB_TOKEN and normalises --dir", () => {
    const settings = publishSettings("results", flags, { GITHUB_TOKEN: "t" });
    expect(settings).toMatchObject({ remote: "/srv/pages.git", dir: "dev/bench", token: "t", retries: 10 });
    expect(publishSettings("results", flags, { GITHUB_TOKEN: "" }).token).toBeUndefined();
  });

  it("refuses a --dir outside the branch, naming the flag", () => {
    expect(() => publishSettings("results", { ...flags, dir: "../x" }, {})).toThrow(/--dir \.\.\/x/);
  });
});
