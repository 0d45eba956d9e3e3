import { COMMENT_LIMIT, cutToFit } from "./body.js";

/**
 * The body of an issue we keep (pure): two hidden markers, then the markdown. The first says what
 * the issue is about, a key of names (`<!-- proxybench-change: SUITE/BENCH -->`, each part
 * percent-encoded, so no name can end the comment or pass for another key); the second lists what
 * the issue has filed, by id (`<!-- proxybench-change-filed: SHA ... -->`). An item is new while no
 * issue of its key, open or closed, lists its id: closing an issue settles what it lists.
 */

/** The label every such issue carries: the issues are listed by it, then matched by marker. */
export const ISSUE_LABEL = "proxybench-regression";

/** GitHub's longest issue title. */
const TITLE_LIMIT = 256;

/** The key's marker: what finds its issue again. */
export function issueMarker(key: readonly string[]): string {
  return `<!-- proxybench-change: ${key.map(encodeURIComponent).join("/")} -->`;
}

function filedMarker(ids: Iterable<string>): string {
  return `<!-- proxybench-change-filed: ${[...ids].map(encodeURIComponent).join(" ")} -->`;
}

/** The key an issue body is about (its marker) and the ids it has filed; undefined: not ours. */
export function parseIssueBody(
  body: string | null | undefined,
): { marker: string; filed: Set<string> } | undefined {
  const text = (body ?? "").trimStart();
  const key = /^<!-- proxybench-change: [^\s<>]* -->/.exec(text);
  if (!key) return undefined;
  const filed = /<!-- proxybench-change-filed: ([^\s<>]*(?: [^\s<>]+)*) -->/.exec(text);
  const ids = (filed?.[1] ?? "").split(" ").filter((id) => id !== "");
  return { marker: key[0], filed: new Set(ids.map(safeDecode)) };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The markers and the markdown, cut on a line boundary to GitHub's limit of a body. */
export function buildIssueBody(key: readonly string[], filed: Iterable<string>, markdown: string): string {
  const header = `${issueMarker(key)}\n${filedMarker(filed)}\n`;
  return header + cutToFit(markdown, COMMENT_LIMIT - header.length);
}

/**
 * A title that stays plain text: no line breaks or control characters, mentions and references
 * broken by a zero-width space (as render/escape.ts does), at most GitHub's 256 characters.
 */
export function plainTitle(text: string): string {
  const plain = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ")
    .replace(/@(?=\S)/g, "@\u200B")
    .replace(/#(?=\d)/g, "#\u200B");
  return plain.length > TITLE_LIMIT ? `${plain.slice(0, TITLE_LIMIT - 1)}…` : plain;
}
