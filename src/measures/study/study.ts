import { runExtensibilityStudy, type ExtensibilityOutcome } from "./extensibility/run.js";
import {
  announceStudy,
  prepareStudy,
  runOneStudyRun,
  type StudyOutcome,
  type StudyOverrides,
  type StudyRunDeps,
} from "./run.js";

/**
 * `proxybench study NAME`: checks the study, skips what cannot run here (saying so), then runs
 * it: the extensibility study as variant runs of each gateway (src/measures/study/extensibility), every
 * other as one run of the runner whose report is the layout the original published.
 */
export async function runStudy(
  name: string,
  overrides: StudyOverrides,
  deps: StudyRunDeps,
): Promise<StudyOutcome | ExtensibilityOutcome> {
  const prepared = await prepareStudy(name, overrides, deps);
  announceStudy(prepared, deps.stderr ?? process.stderr);
  if (prepared.study.manifest.layout === "extensibility") {
    return runExtensibilityStudy(prepared, overrides, deps);
  }
  return runOneStudyRun(prepared, overrides, deps);
}
