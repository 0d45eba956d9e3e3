import type { CommentSection, SectionOptions } from "../report/section.js";
import { countedSection } from "./counted/comment.js";
import { wallClockSection } from "./wall-clock/comment.js";

/**
 * The kinds of measurement whose runs a pull request's comment compares, in the comment's order,
 * a line a kind: the name its headline gives it and its section (each kind's comment.ts), whose
 * runs are the kind's. A study's comment is its own (measures/study/comment.ts): a study is
 * reported alone.
 */
export const COMMENT_KINDS = {
  counted: { label: "counted", section: countedSection },
  wallClock: { label: "wall clock", section: wallClockSection },
};

export type CommentKey = keyof typeof COMMENT_KINDS;

type RunsOf = { [K in CommentKey]: Parameters<(typeof COMMENT_KINDS)[K]["section"]>[0] };

/** The runs of each kind, as its section reads them. */
export type KindRuns = Partial<RunsOf>;

/** The kinds' keys in the comment's order. */
export const COMMENT_ORDER = Object.keys(COMMENT_KINDS) as CommentKey[];

/** The section of one kind's runs. */
export function kindSection<K extends CommentKey>(
  key: K,
  runs: RunsOf[K],
  options: SectionOptions,
): CommentSection {
  const kinds: {
    [P in CommentKey]: { section: (runs: RunsOf[P], options: SectionOptions) => CommentSection };
  } = COMMENT_KINDS;
  return kinds[key].section(runs, options);
}
