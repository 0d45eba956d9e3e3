import { describe, expect, it } from "vitest";
import { commitContextFromEnv, isBranchName, publishSettings } from "../../../src/commands/publish.js";

const flags = { repo: "/srv/pages.git", branch: "gh-pages", dir: "dev/bench/", pushRetries: 10 };

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

  it("refuses a --branch git would refuse, and a --repo-url that is no URL, naming the flag", () => {
    expect(() => publishSettings("results", { ...flags, branch: "a b" }, {})).toThrow(
      "--branch a b: not a valid branch name",
    );
    expect(() => publishSettings("results", { ...flags, repoUrl: "o/r" }, {})).toThrow(
      "--repo-url o/r: expected https://github.com/OWNER/NAME",
    );
    expect(
      publishSettings("results", { ...flags, repoUrl: "https://ghe.example.com/o/r" }, {}).context.repoUrl,
    ).toBe("https://ghe.example.com/o/r");
  });

  it.each([
    ["gh-pages", true],
    ["bench/history", true],
    ["v1.2", true],
    ["", false],
    ["bad..name", false],
    ["with space", false],
    ["-lead", false],
    ["trail/", false],
    ["trail.", false],
    ["x.lock", false],
    ["a//b", false],
    ["a/.hidden", false],
    ["a@{b", false],
    ["a~1", false],
    ["a:b", false],
    ["@", false],
  ])("branch name %j: %s (git check-ref-format's rules)", (name, ok) => {
    expect(isBranchName(name)).toBe(ok);
  });
});
