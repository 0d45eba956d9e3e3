import type { CommentSection, SectionOptions } from "../report/section.js";
import { countedSection, type CountedRuns } from "./counted/comment.js";
import { wallClockSection, type WallClockRuns } from "./wall-clock/comment.js";

/**
 * The kinds of measurement whose runs a pull request's comment compares, in the comment's order,
 * a line a kind: its runs, the name its headline gives it and its section (each kind's
 * comment.ts). A study's comment is its own (measures/study/comment.ts): a study is reported alone.
 */
export interface KindRuns {
  counted?: CountedRuns;
  wallClock?: WallClockRuns;
}

export const COMMENT_KINDS: CommentKinds = {
  counted: { label: "counted", section: countedSection },
  wallClock: { label: "wall clock", section: wallClockSection },
};

export type CommentKey = keyof KindRuns;

type RunsOf = { [K in CommentKey]-?: NonNullable<KindRuns[K]> };

type CommentKinds = {
  [K in CommentKey]: { label: string; section: (runs: RunsOf[K], options: SectionOptions) => CommentSection };
};

/** The kinds' keys in the comment's order. */
export const COMMENT_ORDER = Object.keys(COMMENT_KINDS) as CommentKey[];

/** The section of one kind's runs. */
export function kindSection<K extends CommentKey>(
  key: K,
  runs: RunsOf[K],
  options: SectionOptions,
): CommentSection {
  const section: (runs: RunsOf[K], options: SectionOptions) => CommentSection = COMMENT_KINDS[key].section;
  return section(runs, options);
}
