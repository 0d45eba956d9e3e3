/**
 * What the GitHub-facing inputs must look like: a repository, a commit, a pull request, a
 * comment marker, a link. The `comment` command and the report action both check them here and
 * name the flag or the input themselves (pure).
 */

/** What a marker id may hold, as said in errors. */
export const MARKER_RULE = "use 1 to 64 letters, digits, '.', '_' or '-'";

export function isMarkerId(id: string): boolean {
  return /^[A-Za-z0-9._-]{1,64}$/.test(id);
}

/** `OWNER/NAME` split; undefined when it is not one. */
export function parseRepository(text: string): { owner: string; repo: string } | undefined {
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(text);
  return match ? { owner: match[1]!, repo: match[2]! } : undefined;
}

/** A hexadecimal commit sha (abbreviated or whole). */
export function isCommitSha(text: string): boolean {
  return /^[0-9a-fA-F]{4,64}$/.test(text);
}

export function isPullRequestNumber(n: number): boolean {
  return Number.isInteger(n) && n > 0;
}

/** An http(s) URL, parsed; undefined for anything else (javascript:, file:, not a URL). */
export function httpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A repository's web address as data.js records it (`https://github.com/OWNER/NAME`, any https
 * host for GitHub Enterprise), without a trailing `/` or `.git`; undefined for anything else. The
 * chart page checks data.js's the same way (page.ts, `repoBase`).
 */
export function repositoryWebUrl(text: string | undefined): string | undefined {
  const trimmed = (text ?? "").replace(/\/+$/, "").replace(/\.git$/, "");
  return /^https:\/\/[A-Za-z0-9.-]+(:\d+)?\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(trimmed)
    ? trimmed
    : undefined;
}

/** The commit range `before...after` on GitHub, when both are commit shas; else undefined. */
export function compareUrl(repoUrl: string | undefined, before: string, after: string): string | undefined {
  const base = repositoryWebUrl(repoUrl);
  if (!base || !isCommitSha(before) || !isCommitSha(after)) return undefined;
  return `${base}/compare/${before}...${after}`;
}
