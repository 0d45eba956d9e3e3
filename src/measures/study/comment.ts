import { escapeMarkdown } from "../../render/escape.js";
import type { StudyRun } from "./read-run.js";

/** A study's PR comment: its headline, what a study shows and does not, its own table. Pure. */

/** A study run: its own table (rendered by the study, escaped), compared within the run only. */
export type StudyRuns = Omit<StudyRun, "dirs">;

const STUDY_SCOPE =
  "measured side by side in one run, on the same machine and cores: the table shows how they " +
  "compare with each other here. It is no comparison with the base branch, so it says nothing " +
  "of whether this change made anything faster or slower.";

/** A study's comment: what it shows in the headline, then its own table. Pure. */
export function studyComment(study: StudyRuns): string {
  const name = escapeMarkdown(study.name);
  return [
    `## proxybench: study ${name}, ${escapeMarkdown(study.compares)} side by side (no verdict against a base)`,
    `### Study: ${name}`,
    `${escapeMarkdown(study.title)}. The study's ${escapeMarkdown(study.compares)} ${STUDY_SCOPE}`,
    study.markdown.trimEnd(),
  ].join("\n\n");
}
