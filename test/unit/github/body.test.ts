import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildCommentBody,
  checkMarkerId,
  commentMarker,
  decide,
  headMarker,
  isMarked,
  parseHead,
  safeLink,
  type HeadInfo,
} from "../../../src/github/body.js";
import { summaryText, writeJobSummary } from "../../../src/github/summary.js";

const A = "a".repeat(40);
const B = "b".repeat(40);

describe("markers", () => {
  it("round-trips the head marker and ignores what is not one", () => {
    const body = `${commentMarker("p")}\n${headMarker("p", { sha: A.toUpperCase(), time: "2026-11-20T10:00:00+02:00" })}\nx`;
    expect(isMarked(body, "p")).toBe(true);
    expect(isMarked(body, "q")).toBe(false);
    expect(isMarked(`quote ${body}`, "p")).toBe(false);
    expect(parseHead(body, "p")).toEqual({ sha: A, time: "2026-11-20T08:00:00.000Z" });
    expect(parseHead("no marker", "p")).toBeUndefined();
    expect(headMarker("p", { sha: "--> <b>", time: "not a time" })).toBe(
      "<!-- proxybench:p:head sha= time= -->",
    );
  });

  it.each(["proxybench", "bench.nightly", "a-b_c"])("accepts marker id %s", (id) => {
    expect(checkMarkerId(id)).toBe(id);
  });
  it.each(["", "a b", "x-->", "a".repeat(65)])("refuses marker id %j", (id) => {
    expect(() => checkMarkerId(id)).toThrow(/--marker/);
  });

  it.each([
    ["https://github.com/o/r/actions/runs/1", "https://github.com/o/r/actions/runs/1"],
    ["https://x.test/a b)", "https://x.test/a%20b%29"],
    ["javascript:alert(1)", undefined],
    ["not a url", undefined],
  ])("safeLink(%j)", (url, expected) => {
    expect(safeLink(url)).toBe(expected);
  });
});

describe("decide", () => {
  const at = (sha: string | undefined, time?: string): HeadInfo => ({ sha, time });
  it.each<[string, HeadInfo, HeadInfo | undefined, string | undefined, "update" | "skip"]>([
    ["no existing head", at(A, "2026-01-02T00:00:00Z"), undefined, undefined, "update"],
    ["same sha", at(A, "2026-01-01T00:00:00Z"), at(A, "2026-01-02T00:00:00Z"), B, "update"],
    ["ours is the PR head", at(A, "2026-01-01T00:00:00Z"), at(B, "2026-01-02T00:00:00Z"), A, "update"],
    ["theirs is the PR head", at(A, "2026-01-03T00:00:00Z"), at(B, "2026-01-02T00:00:00Z"), B, "skip"],
    ["theirs is later", at(A, "2026-01-01T00:00:00Z"), at(B, "2026-01-02T00:00:00Z"), undefined, "skip"],
    ["ours is later", at(A, "2026-01-03T00:00:00Z"), at(B, "2026-01-02T00:00:00Z"), undefined, "update"],
    ["equal times", at(A, "2026-01-02T00:00:00Z"), at(B, "2026-01-02T00:00:00Z"), undefined, "update"],
    ["our time unknown", at(A), at(B, "2026-01-02T00:00:00Z"), undefined, "update"],
    [
      "neither is the PR head, theirs later",
      at(A, "2026-01-01T00:00:00Z"),
      at(B, "2026-01-02T00:00:00Z"),
      "c".repeat(40),
      "skip",
    ],
  ])("%s", (_name, ours, existing, prHead, expected) => {
    expect(decide(ours, existing, prHead).action).toBe(expected);
  });
});

describe("comment body", () => {
  const head = { sha: A, time: "2026-01-01T00:00:00Z" };
  it("keeps a report that fits whole", () => {
    const { body, truncated } = buildCommentBody("# r\n", { id: "p", head });
    expect(truncated).toBe(false);
    expect(body).toBe(`${commentMarker("p")}\n${headMarker("p", head)}\n# r\n`);
  });

  it.each([
    ["plain lines", "line of text\n".repeat(200)],
    ["one open code fence", "```\n" + "code\n".repeat(200) + "```\n"],
    ["a long single line", "x".repeat(5000)],
  ])("cuts %s to the limit", (_name, markdown) => {
    const { body, truncated } = buildCommentBody(markdown, {
      id: "p",
      head,
      limit: 1000,
      detailsUrl: "https://d.test/1",
    });
    expect(truncated).toBe(true);
    expect(body.length).toBeLessThanOrEqual(1000);
    expect(body).toContain("[https://d.test/1](https://d.test/1)");
    expect(body.split("\n").filter((l) => l.startsWith("```")).length % 2).toBe(0);
  });

  /** The comment's wall-clock section: its full tables in a collapsed section, then more. */
  const collapsed =
    "## proxybench: **unchanged**\n\n<details><summary>All results of the run</summary>\n\n" +
    "| proxy | req/s |\n| --- | --- |\n" +
    "| nginx | 1000 |\n".repeat(300) +
    "\n</details>\n\nafter\n";

  /** `<details>` opened and closed, and where the last one closes (-1: none). */
  const detailsOf = (text: string) => ({
    open: text.match(/<details>/g)?.length ?? 0,
    closed: text.match(/<\/details>/g)?.length ?? 0,
    lastClose: text.lastIndexOf("</details>"),
  });

  it("closes a details section the cut left open, so the note about the cut is not hidden in it", () => {
    const { body, truncated } = buildCommentBody(collapsed, { id: "p", head, limit: 2000 });
    expect(truncated).toBe(true);
    expect(body.length).toBeLessThanOrEqual(2000);
    const details = detailsOf(body);
    expect(details).toMatchObject({ open: 1, closed: 1 });
    expect(details.lastClose).toBeLessThan(body.indexOf("This report was cut"));
    // A tag inside a code fence is text: nothing to close for it.
    const fenced = "```\n<details>\n```\n" + "line\n".repeat(500);
    expect(detailsOf(buildCommentBody(fenced, { id: "p", head, limit: 1000 }).body).closed).toBe(0);
  });

  it("says where the full report is when no link is given", () => {
    const { body } = buildCommentBody("y\n".repeat(1000), { id: "p", head, limit: 600 });
    expect(body).toContain("job summary");
  });
});

describe("job summary", () => {
  it("appends to GITHUB_STEP_SUMMARY when set, and does nothing otherwise", async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), "proxybench-summary-")), "s.md");
    await writeFile(file, "before\n");
    expect(await writeJobSummary("# one", { GITHUB_STEP_SUMMARY: file })).toBe(true);
    expect(await writeJobSummary("# two\n", { GITHUB_STEP_SUMMARY: file })).toBe(true);
    expect(await writeJobSummary("# three", {})).toBe(false);
    expect(await readFile(file, "utf8")).toBe("before\n# one\n# two\n");
  });

  it("closes a details section that the cut of a summary left open, before its note", () => {
    const markdown =
      "<details><summary>All results of the run</summary>\n\n| a |\n| --- |\n" + "| 1 |\n".repeat(400);
    const text = summaryText(markdown, 600);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(600);
    expect(text.match(/<\/details>/g)).toHaveLength(1);
    expect(text.indexOf("</details>")).toBeLessThan(text.indexOf("Cut to fit"));
  });

  it("cuts a summary over the limit on a line boundary, with a note", () => {
    const text = summaryText("é line\n".repeat(100), 300);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(300);
    expect(text).toContain("Cut to fit");
    expect(text.split("\n")[0]).toBe("é line");
  });
});
