import {
  COMMENT_KINDS,
  COMMENT_ORDER,
  kindSection,
  type CommentKey,
  type KindRuns,
} from "../measures/index.js";
import { studyComment, type StudyRuns } from "../measures/study/comment.js";
import type { Verdict } from "../report/compare.js";
import type { SectionCounts, SectionOptions } from "../report/section.js";
import { escapeMarkdown } from "../render/escape.js";

/**
 * The one PR comment (and job summary): a headline over the kinds' sections, in the order of
 * src/measures/index.ts: the counted verdicts first (instructions per request under Valgrind:
 * deterministic, they decide small changes), then the wall-clock ones (latency, the proxy's CPU
 * and memory per request), each section saying what it can and cannot see.
 * Pure: the runs are read and the counted comparison made by `loadCommentRuns`; the report
 * action and `proxybench comment` both render with this function, so they post the same text.
 * Every string from a results file is escaped: the artifact is the pull request's.
 */

/** A study run is reported alone (`loadCommentRuns` refuses it beside other runs). */
export interface CommentRuns extends KindRuns {
  study?: StudyRuns;
  /** What was expected and is not there (a failed job, a lost shard): the report is incomplete. */
  missing?: string[];
}

export interface PrComment {
  markdown: string;
  /** Empty when nothing was compared (a run without base or variants). */
  verdict: Verdict | "";
  /** Regressed metrics, counted and wall-clock together. */
  regressions: number;
  counts: Partial<Record<CommentKey, SectionCounts>>;
  /** What the comparison cannot speak for (nothing compared, a broken head cell). */
  shortfall?: string;
  /** The commit the comment is for, and its time (an older comment never replaces a newer). */
  head: { sha: string; time: string };
}

/**
 * One word over every section: a regression wins; then a shortfall (what was not measured could
 * hide a regression), then an improvement, then doubt. Pure.
 */
function overallVerdict(counts: SectionCounts[], shortfall: string | undefined): Verdict {
  const sum = (k: keyof SectionCounts) => counts.reduce((s, c) => s + c[k], 0);
  if (sum("regressed") > 0) return "regressed";
  if (shortfall !== undefined) return "inconclusive";
  if (sum("improved") > 0) return "improved";
  if (sum("inconclusive") > 0) return "inconclusive";
  return "unchanged";
}

/** The warning under the headline of a report that lacks what was expected (escaped). Pure. */
function incompleteNote(missing: readonly string[]): string {
  return `> [!WARNING]\n> Incomplete: ${missing.map(escapeMarkdown).join("; ")}. The verdict cannot speak for what is missing.`;
}

/** The headline over both sections: the verdict, and each section's counts. Pure. */
function headline(verdict: Verdict | "", counts: PrComment["counts"]): string {
  const parts = COMMENT_ORDER.flatMap((key) => {
    const c = counts[key];
    if (c === undefined) return [];
    const tally = `${c.regressed} regressed, ${c.improved} improved, ${c.unchanged} unchanged`;
    return [`${COMMENT_KINDS[key].label}: ${tally}, ${c.inconclusive} inconclusive`];
  });
  const word = verdict === "" ? "results" : `**${verdict}**`;
  return `## proxybench: ${word}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`;
}

/** The commit a comment is for: the wall-clock run's, else the counted run's, else the study's. */
function commentHead(runs: CommentRuns): PrComment["head"] {
  const from = runs.wallClock?.head ?? runs.counted?.head ?? runs.study?.head;
  const git = from?.environment?.git;
  return { sha: git?.commit ?? "", time: git?.timestamp ?? from?.startedAt ?? "" };
}

/** The comment of a pull request's runs: each kind's section, in the registry's order. Pure. */
export function buildPrComment(runs: CommentRuns, options: SectionOptions = {}): PrComment {
  const missing = runs.missing ?? [];
  const note = missing.length > 0 ? [incompleteNote(missing)] : [];
  if (runs.study !== undefined) {
    const [title, ...rest] = studyComment(runs.study).split("\n\n");
    const markdown = `${[title, ...note, ...rest].join("\n\n")}\n`;
    const shortfall = missing.length > 0 ? { shortfall: missing.join("; ") } : {};
    return { markdown, verdict: "", regressions: 0, counts: {}, head: commentHead(runs), ...shortfall };
  }
  const sections = COMMENT_ORDER.flatMap((key) => {
    const kindRuns = runs[key];
    return kindRuns === undefined ? [] : [{ key, ...kindSection(key, kindRuns, options) }];
  });
  if (sections.length === 0) throw new Error("buildPrComment: no runs to report");
  const counts: PrComment["counts"] = {};
  for (const s of sections) if (s.counts !== undefined) counts[s.key] = s.counts;
  const shortfalls = [...missing, ...sections.flatMap((s) => s.shortfall ?? [])];
  const shortfall = shortfalls.length > 0 ? shortfalls.join("; ") : undefined;
  const compared = Object.values(counts);
  // Nothing compared and nothing missing: a run without a base, no verdict to give.
  const verdict = compared.length === 0 && missing.length === 0 ? "" : overallVerdict(compared, shortfall);
  const regressions = compared.reduce((s, c) => s + c.regressed, 0);
  const parts = [headline(verdict, counts), ...note, ...sections.map((s) => s.markdown)];
  return {
    markdown: `${parts.join("\n\n")}\n`,
    verdict,
    regressions,
    counts,
    head: commentHead(runs),
    ...(shortfall !== undefined ? { shortfall } : {}),
  };
}
