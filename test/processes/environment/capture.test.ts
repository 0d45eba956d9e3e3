import { describe, expect, it } from "vitest";
import {
  ciFromEnv,
  gitFromEnv,
  parseCpuModel,
  parseGitLog,
  parseOsRelease,
  parseToolVersion,
} from "../../../src/environment/parse.js";
import { captureEnvironment } from "../../../src/environment/capture.js";
import { Environment } from "../../../src/results/schema.js";

describe("environment parsers", () => {
  it.each([
    [
      'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\n',
      "Debian GNU/Linux 12 (bookworm)",
    ],
    ['NAME="Alpine"\nVERSION=3.19\n', "Alpine 3.19"],
    ["", undefined],
  ])("parseOsRelease %#", (text, os) => {
    expect(parseOsRelease(text)).toBe(os);
  });

  it.each([
    ["processor\t: 0\nmodel name\t: AMD EPYC 7B13\n", "AMD EPYC 7B13"],
    ["processor : 0\nBogoMIPS : 50\nModel : Raspberry Pi 4\n", "Raspberry Pi 4"],
    ["processor : 0\n", undefined],
  ])("parseCpuModel %#", (text, model) => {
    expect(parseCpuModel(text)).toBe(model);
  });

  it.each([
    [{}, undefined],
    [{ CI: "true" }, { provider: "unknown" }],
    [
      {
        GITHUB_ACTIONS: "true",
        GITHUB_RUN_ID: "42",
        GITHUB_REPOSITORY: "o/r",
        GITHUB_SERVER_URL: "https://github.com",
      },
      { provider: "github-actions", runId: "42", runUrl: "https://github.com/o/r/actions/runs/42" },
    ],
  ])("ciFromEnv %#", (env, ci) => {
    expect(ciFromEnv(env)).toEqual(ci);
  });

  it("gitFromEnv prefers the PR head branch", () => {
    expect(gitFromEnv({ GITHUB_SHA: "abc", GITHUB_HEAD_REF: "feat", GITHUB_REF_NAME: "1/merge" })).toEqual({
      commit: "abc",
      branch: "feat",
    });
    expect(gitFromEnv({})).toEqual({});
  });

  it("parseGitLog", () => {
    expect(parseGitLog("abc\0Ann\0ann@x.org\x002026-11-21T13:00:00+00:00\0Fix it\n")).toEqual({
      commit: "abc",
      message: "Fix it",
      timestamp: "2026-11-21T13:00:00+00:00",
      author: { name: "Ann", email: "ann@x.org" },
    });
  });

  it.each([
    ["taskset from util-linux 2.38.1", "2.38.1"],
    ["k6 v1.8.1 (commit/abc, go1.24)", "1.8.1"],
    ["wrk 4.1.0 [epoll] Copyright", "4.1.0"],
  ])("parseToolVersion %s", (out, v) => {
    expect(parseToolVersion(out)).toBe(v);
  });

  it("captures a valid environment of this machine, with the git commit of the repository", async () => {
    const env = Environment.parse(await captureEnvironment({ tools: { k6: "1.8.1" }, env: {} }));
    expect(env.cores).toBeGreaterThan(0);
    expect(env.tools).toMatchObject({ k6: "1.8.1" });
    expect(env.tools.taskset).toMatch(/^\d+\.\d+/);
    expect(env.git.commit).toMatch(/^[0-9a-f]{40}$/);
  });
});
