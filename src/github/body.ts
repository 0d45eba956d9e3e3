import { httpUrl, isCommitSha, isMarkerId, MARKER_RULE } from "./identifiers.js";

/**
 * The sticky comment's body: two hidden markers, then the markdown. The first marker finds the
 * comment again (`<!-- proxybench:ID -->`); the second records which head commit it was written
 * for and when that commit was made (or, failing that, when the run started), so an older run
 * finishing late never replaces the report of a newer commit.
 */

/** GitHub refuses issue comments longer than this many characters. */
export const COMMENT_LIMIT = 65_536;

export interface HeadInfo {
  sha?: string;
  /** ISO 8601: the head commit's timestamp, or the run's start time. */
  time?: string;
}

export function checkMarkerId(id: string): string {
  if (!isMarkerId(id)) throw new Error(`--marker ${id}: ${MARKER_RULE}`);
  return id;
}

export function commentMarker(id: string): string {
  return `<!-- proxybench:${id} -->`;
}

export function headMarker(id: string, head: HeadInfo): string {
  const sha = head.sha && isCommitSha(head.sha) ? head.sha.toLowerCase() : "";
  const time = head.time && !Number.isNaN(Date.parse(head.time)) ? new Date(head.time).toISOString() : "";
  return `<!-- proxybench:${id}:head sha=${sha} time=${time} -->`;
}

/** Whether a comment is one of ours for this id: the marker opens the body. */
export function isMarked(body: string | undefined, id: string): boolean {
  return (body ?? "").trimStart().startsWith(commentMarker(id));
}

/** The head recorded in a comment, if it has one. */
export function parseHead(body: string | undefined, id: string): HeadInfo | undefined {
  const escaped = id.replace(/[.]/g, "\\.");
  const match = new RegExp(`<!-- proxybench:${escaped}:head sha=([0-9a-f]*) time=([^ ]*) -->`).exec(
    body ?? "",
  );
  if (!match) return undefined;
  return { sha: match[1] || undefined, time: match[2] || undefined };
}

/** A URL safe to put in a markdown link, or undefined. */
export function safeLink(url: string | undefined): string | undefined {
  const parsed = url ? httpUrl(url) : undefined;
  return parsed?.href.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function truncationNote(limit: number, detailsUrl: string | undefined): string {
  const link = safeLink(detailsUrl);
  const where = link
    ? `The full report: [${link}](${link})`
    : "The full report is in the job summary and the run's artifacts.";
  return `\n\n---\n> [!NOTE]\n> This report was cut to fit GitHub's ${limit.toLocaleString("en-US")}-character comment limit. ${where}\n`;
}

/**
 * What closes the blocks a cut left open, so that what follows renders outside them: an open code
 * fence, then every `<details>` opened and not closed (the note about the cut would otherwise sit
 * inside a collapsed section, unseen). Tags inside a code fence are text, not counted. Pure.
 */
function closeOpenBlocks(markdown: string): string {
  let inFence = false;
  let openDetails = 0;
  for (const line of markdown.split("\n")) {
    if (line.trimStart().startsWith("```")) inFence = !inFence;
    else if (!inFence) {
      openDetails += (line.match(/<details[\s>]/gi) ?? []).length;
      openDetails = Math.max(0, openDetails - (line.match(/<\/details>/gi) ?? []).length);
    }
  }
  return `${inFence ? "\n```" : ""}${"\n\n</details>".repeat(openDetails)}`;
}

/**
 * `markdown` cut on a line boundary so that it, with what closes its open blocks
 * (`closeOpenBlocks`), measures at most `room` (characters, or what `measure` counts: bytes for
 * the job summary). Pure.
 */
export function cutToFit(
  markdown: string,
  room: number,
  measure: (text: string) => number = (text) => text.length,
): string {
  let budget = room;
  for (;;) {
    if (budget <= 0) return "";
    let kept = markdown.slice(0, budget);
    const lastNewline = kept.lastIndexOf("\n");
    if (lastNewline > budget / 2) kept = kept.slice(0, lastNewline);
    const closed = kept + closeOpenBlocks(kept);
    const over = measure(closed) - room;
    if (over <= 0) return closed;
    budget -= over;
  }
}

/**
 * The whole comment body, cut at a line boundary when it would exceed `limit`, with a note and
 * a link to the full report; an open code fence and open `<details>` are closed so the note and
 * the rest of the page render outside them.
 */
export function buildCommentBody(
  markdown: string,
  options: { id: string; head: HeadInfo; detailsUrl?: string; limit?: number },
): { body: string; truncated: boolean } {
  const limit = options.limit ?? COMMENT_LIMIT;
  const header = `${commentMarker(options.id)}\n${headMarker(options.id, options.head)}\n`;
  const full = header + markdown;
  if (full.length <= limit) return { body: full, truncated: false };
  const note = truncationNote(limit, options.detailsUrl);
  const room = limit - header.length - note.length;
  if (room <= 0) throw new Error(`comment limit ${limit} leaves no room for the report`);
  return { body: header + cutToFit(markdown, room) + note, truncated: true };
}

export type Decision = { action: "update"; reason: string } | { action: "skip"; reason: string };

/**
 * Whether our report may replace an existing one (pure). In order:
 * 1. an existing comment without a head marker, or for the same sha: replace;
 * 2. ours is for the pull request's current head: replace;
 * 3. the existing one is for the pull request's current head (and ours is not): keep it;
 * 4. both carry a time and the existing one's is later: keep it;
 * 5. otherwise: replace.
 */
export function decide(ours: HeadInfo, existing: HeadInfo | undefined, prHeadSha?: string): Decision {
  if (!existing?.sha && !existing?.time)
    return { action: "update", reason: "the existing comment records no head" };
  const same = (a?: string, b?: string) => !!a && !!b && a.toLowerCase() === b.toLowerCase();
  if (same(ours.sha, existing.sha)) return { action: "update", reason: "same head commit" };
  if (same(ours.sha, prHeadSha))
    return { action: "update", reason: "ours is for the pull request's current head" };
  if (same(existing.sha, prHeadSha)) {
    return {
      action: "skip",
      reason: `the existing comment is for the pull request's current head ${short(existing.sha)}; ours is for ${short(ours.sha)}`,
    };
  }
  const oursTime = ours.time ? Date.parse(ours.time) : NaN;
  const theirTime = existing.time ? Date.parse(existing.time) : NaN;
  if (!Number.isNaN(oursTime) && !Number.isNaN(theirTime) && theirTime > oursTime) {
    return {
      action: "skip",
      reason: `the existing comment is for a newer commit ${short(existing.sha)} (${existing.time}) than ours ${short(ours.sha)} (${ours.time})`,
    };
  }
  return { action: "update", reason: "ours is not older" };
}

function short(sha: string | undefined): string {
  return sha ? sha.slice(0, 12) : "(unknown)";
}
