import type { CompareOptions, Verdict } from "./compare.js";
import { plural } from "../render/format.js";

/**
 * A kind's section of the PR comment (and job summary): its markdown, its verdicts counted, and
 * what it cannot speak for. The kinds write theirs (src/measures/<kind>/comment.ts); the comment
 * composes them (src/comment/pr-comment.ts).
 */
export interface CommentSection {
  markdown: string;
  counts?: SectionCounts;
  shortfall?: string;
}

export type SectionCounts = Record<Verdict, number>;

/** How a section compares and names what it shows. */
export interface SectionOptions extends CompareOptions {
  baselineProxy?: string;
  /** The benchmark runner's name, given by the workflow (else the results' host name). */
  runnerName?: string;
}

/** The shortfall of a comparison that compared nothing. */
export function nothingCompared(notCompared: readonly unknown[]): string {
  return `nothing was compared (${plural(notCompared.length, "cell")} not compared)`;
}
