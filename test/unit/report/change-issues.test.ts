import { describe, expect, it } from "vitest";
import type { SeriesChanges, SeriesKey } from "../../../src/publish/change-points.js";
import { buildIssueBody, issueMarker, parseIssueBody } from "../../../src/github/issue-body.js";
import { changeIssueItem, changeIssueMarkdown } from "../../../src/report/change-issues.js";
import { liveMarkup, visibleText } from "../../support/actions/gfm.js";
import { changePoint, HOSTILE_NAMES, series, sha } from "../../support/changes/fixtures.js";

const REPO_URL = "https://github.com/o/r";

/** The body filed for a series: its markers and its markdown. */
const issueBody = (s: SeriesChanges, filed: Iterable<string>, repoUrl?: string) =>
  buildIssueBody([s.suite, s.bench], filed, changeIssueMarkdown(s, repoUrl));
const seriesMarker = (key: SeriesKey) => issueMarker([key.suite, key.bench]);
const issueTitle = (key: SeriesKey) => changeIssueItem({ ...series(key.suite, key.bench, []), ...key }).title;

describe("the issue's markers", () => {
  it("find the series again and the change points it filed", () => {
    const s = series("passthrough latency", "nginx p99", [changePoint(sha(1), sha(2), 6.1)]);
    const body = issueBody(s, [sha(2), "not a sha"], REPO_URL);
    expect(body.startsWith(`${seriesMarker(s)}\n`)).toBe(true);
    expect(parseIssueBody(body)).toEqual({ marker: seriesMarker(s), filed: new Set([sha(2), "not a sha"]) });
  });

  it.each(HOSTILE_NAMES)("%j cannot end the marker or pass for another series", (name) => {
    const key = { suite: name, bench: `${name} p99` };
    const marker = seriesMarker(key);
    const inside = /^<!-- proxybench-change: (.*) -->$/.exec(marker)?.[1];
    expect(inside).toMatch(/^[^\s<>]+$/);
    expect(seriesMarker({ suite: `${name}/x`, bench: "p99" })).not.toBe(
      seriesMarker({ suite: name, bench: "x/p99" }),
    );
    const body = issueBody({ ...series(name, name, [changePoint(sha(1), sha(2), 5)]), ...key }, [sha(2)]);
    expect(parseIssueBody(body)?.marker).toBe(marker);
  });

  it("a body without the marker first is not ours", () => {
    const s = series("a", "b", []);
    expect(parseIssueBody(`hello\n${seriesMarker(s)}`)).toBeUndefined();
    expect(parseIssueBody(null)).toBeUndefined();
  });
});

describe("the issue's body", () => {
  it("lists every change point of the series, newest first, each range linked", () => {
    const s = series("passthrough latency", "nginx p99", [
      changePoint(sha(1), sha(2), -4.2, { pValue: 0.012 }),
      changePoint(sha(3), sha(4), 6.1, { pValue: 0.0004 }),
    ]);
    const text = visibleText(issueBody(s, [sha(4)], REPO_URL));
    expect(text).toContain("regression in nginx p99 of suite passthrough latency (smaller is better)");
    expect(text).toMatch(
      /333333333333\.\.\.444444444444 2026-11-02 100 ms 106\.1 ms \+6\.10% 0\.0004 regression/,
    );
    expect(text).toMatch(
      /111111111111\.\.\.222222222222 2026-11-02 100 ms 95\.8 ms -4\.20% 0\.012 improvement/,
    );
    expect(text.indexOf("+6.10%")).toBeLessThan(text.indexOf("-4.20%"));
    expect(
      liveMarkup(issueBody(s, [sha(4)], REPO_URL), [
        `${REPO_URL}/compare/${sha(3)}...${sha(4)}`,
        `${REPO_URL}/compare/${sha(1)}...${sha(2)}`,
      ]),
    ).toEqual([]);
  });

  it.each([
    ["a repository URL that is not one", "javascript:alert(1)//github.com/o/r", sha(1), sha(2)],
    ["a commit id that is not a sha", REPO_URL, "@octocat](https://evil.example)", sha(2)],
    ["no repository URL", undefined, sha(1), sha(2)],
  ])("%s: the range is text, not a link", (_what, repoUrl, before, after) => {
    const body = issueBody(series("s", "b", [changePoint(before, after, 5)]), [after], repoUrl);
    expect(liveMarkup(body)).toEqual([]);
  });

  it.each(HOSTILE_NAMES)("%j is shown as written, with nothing live", (name) => {
    const s = series(name, `${name} p99`, [changePoint(sha(1), sha(2), 5)]);
    s.unit = name;
    const body = issueBody(s, [sha(2)], REPO_URL);
    expect(liveMarkup(body, [`${REPO_URL}/compare/${sha(1)}...${sha(2)}`])).toEqual([]);
    expect(visibleText(body)).toContain(name.replace(/\r\n|\n/g, " ").replace(/\s+/g, " "));
    // The table keeps its seven columns.
    expect(
      body
        .split("\n")
        .filter((l) => l.startsWith("|"))[2]
        ?.match(/(?<!\\)\|/g),
    ).toHaveLength(8);
  });
});

describe("the issue's title", () => {
  it.each(HOSTILE_NAMES)("%j stays one plain line, without mentions or references", (name) => {
    const title = issueTitle({ suite: name, bench: name });
    expect(title).not.toMatch(/[\n\r]/);
    expect(title).not.toMatch(/@[a-z]/i);
    expect(title).not.toMatch(/#\d/);
  });

  it("is cut to GitHub's 256 characters", () => {
    const title = issueTitle({ suite: "s".repeat(300), bench: "b" });
    expect(title).toHaveLength(256);
    expect(title.endsWith("…")).toBe(true);
  });
});
