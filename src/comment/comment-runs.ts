import { existsSync, type Stats } from "node:fs";
import path from "node:path";
import {
  compareCountedRuns,
  compareCountedVariants,
  isInstructionsRun,
  readInstructions,
  type CountedOptions,
} from "../measures/counted/compare.js";
import { INSTRUCTIONS_FILE } from "../measures/counted/schema.js";
import { readResults, RESULTS_FILE } from "../results/io.js";
import { mergeResults, readSources, runsIn, shardSet, type ShardSet } from "../results/merge.js";
import { readStudyRun, type StudyRun } from "../measures/study/read-run.js";
import { UserError } from "../util/errors.js";
import { plural } from "../render/format.js";
import type { SectionOptions } from "../report/section.js";
import { buildPrComment, type CommentRuns, type PrComment } from "./pr-comment.js";
import { pickDefined } from "../util/objects.js";

/**
 * The runs a pull request's comment reports, read from what the benchmark left: wall-clock
 * results (results.json, one folder per shard) and a counted run (instructions.json), given as
 * folders or as a folder of artifact folders (the report action downloads every artifact into
 * one). The counted comparison is made here (it reads callgrind files: where the work went).
 */

/**
 * What the workflow that ran the benchmark expects the results to hold: the report cannot see
 * an artifact that was never uploaded, so what is missing is known only against this.
 */
export interface Expected {
  /** Shards of the wall-clock run (1: one run, not split), every one of them among the results. */
  shards?: number;
  /** How each job behind the results ended (job id to its result, as `needs` gives it). */
  jobs?: Record<string, string>;
}

export interface CommentRunsOptions extends CountedOptions {
  /** A base run measured at another time: wall-clock (results.json) or counted (instructions.json). */
  baseResults?: string;
  expected?: Expected;
}

/** The runs given, sorted: study runs are recognised by their results' settings.study (src/measures/study/read-run.ts). */
type Found = Record<"wallClock" | "counted", string[]> & { studies: StudyRun[] };

/** The study's table is rendered a level below the comment's sections. */
const STUDY_HEADING_LEVEL = 4;

/**
 * What a folder (or file) holds: a counted run, a study run or a wall-clock run. A given path is
 * looked at for a counted run first; a folder inside it for a study run, results.json, then
 * instructions.json.
 */
async function runKind(dir: string, given?: Stats): Promise<"counted" | "wallClock" | StudyRun | undefined> {
  if (given && (await isInstructionsRun(dir))) return "counted";
  const study = await readStudyRun(dir, { headingLevel: STUDY_HEADING_LEVEL });
  if (study !== undefined) return study;
  if (given?.isDirectory() === false || existsSync(path.join(dir, RESULTS_FILE))) return "wallClock";
  return !given && existsSync(path.join(dir, INSTRUCTIONS_FILE)) ? "counted" : undefined;
}

/** Sorts one given path into wall-clock, counted and study runs, looking one level down in a folder of artifacts. */
async function sortPath(p: string, found: Found): Promise<void> {
  for (const [dir, kind] of await runsIn(p, `${RESULTS_FILE} or ${INSTRUCTIONS_FILE}`, runKind)) {
    if (typeof kind === "string") found[kind].push(dir);
    else found.studies.push(kind);
  }
}

/** The study run, reported alone: its table is no comparison with a base, nor one of two studies. */
function studyAlone(found: Found, baseResults: string | undefined): StudyRun | undefined {
  const [study, ...others] = found.studies;
  if (study === undefined) return undefined;
  const where = (s: StudyRun) => `study ${s.name}: ${s.dirs.join(", ")}`;
  if (others.length > 0) {
    throw new UserError(`more than one study run (${found.studies.map(where).join("; ")}): give one`);
  }
  const rest = [...found.wallClock, ...found.counted];
  if (rest.length > 0) {
    throw new UserError(
      `a study run (${where(study)}) mixed with other runs (${rest.join(", ")}): give the study run alone`,
    );
  }
  if (baseResults !== undefined) {
    throw new UserError(
      `${study.dirs[0]}: a study run compares its options within the run: give no base results`,
    );
  }
  return study;
}

/** The counted run in `dir` and its comparison: against a counted base run, else its own variants, else none. */
async function countedRuns(
  dir: string,
  baseDir: string | undefined,
  options: CountedOptions,
): Promise<NonNullable<CommentRuns["counted"]>> {
  const { results: head } = await readInstructions(dir);
  if (baseDir !== undefined) return { head, comparison: await compareCountedRuns(baseDir, dir, options) };
  const variants = new Set(head.cells.flatMap((c) => (c.variant === undefined ? [] : [c.variant])));
  return variants.size >= 2 ? { head, comparison: await compareCountedVariants(dir, options) } : { head };
}

/** The jobs that did not end well: every result but success and skipped (a job its `if:` left out). */
function failedJobs(jobs: Record<string, string> = {}): string[] {
  return Object.entries(jobs)
    .filter(([, result]) => result !== "success" && result !== "skipped")
    .map(([job, result]) => `the job ${job} ${result === "failure" ? "failed" : `was ${result}`}`);
}

/**
 * What the results lack against what was expected (pure), as the runs' `missing` when they lack
 * any: jobs that failed, a wall-clock run that is not there, shards of a split run that are not
 * (`shards`: which ones the results hold).
 */
function missingParts(expected: Expected, wallClock: boolean, shards?: ShardSet) {
  const out = failedJobs(expected.jobs);
  const want = expected.shards;
  if (want !== undefined && want > 0 && !wallClock)
    out.push(`no wall-clock results (${plural(want, "shard")} expected)`);
  else if (want !== undefined && want > 1 && wallClock && shards === undefined)
    out.push(`the wall-clock results are one run, not the ${want} shards expected`);
  else if (want !== undefined && shards !== undefined && shards.count !== want)
    out.push(`the wall-clock results are shards of ${shards.count}, not of the ${want} expected`);
  if (shards !== undefined && shards.missing.length > 0)
    out.push(
      `wall-clock ${shards.missing.length === 1 ? "shard" : "shards"} ${shards.missing.join(", ")} of ${shards.count} missing`,
    );
  return out.length > 0 ? { missing: out } : {};
}

/** Reads the runs behind a comment; errors name the path. */
export async function loadCommentRuns(
  paths: readonly string[],
  options: CommentRunsOptions = {},
): Promise<CommentRuns> {
  const found: Found = { wallClock: [], counted: [], studies: [] };
  const expected = options.expected ?? {};
  try {
    for (const p of paths) await sortPath(p, found);
  } catch (err) {
    // Nothing to report at all: say why, when a job that should have made the results did not.
    const failed = failedJobs(expected.jobs);
    if (!(err instanceof UserError) || failed.length === 0) throw err;
    throw new UserError(`${err.message} (${failed.join("; ")})`);
  }
  const study = studyAlone(found, options.baseResults);
  if (study !== undefined) return { study, ...missingParts(expected, true) };
  if (found.counted.length > 1) {
    throw new UserError(
      `more than one counted run (${found.counted.join(", ")}): give one ${INSTRUCTIONS_FILE}`,
    );
  }
  const { baseResults, expected: _expected, ...counted } = options;
  const baseIsCounted = baseResults !== undefined && (await isInstructionsRun(baseResults));
  const runs: CommentRuns = {};
  const sources = await readSources(found.wallClock);
  const shards = shardSet(sources);
  if (sources.length > 0) {
    const head = mergeResults(sources);
    const base = baseResults !== undefined && !baseIsCounted ? await readResults(baseResults) : undefined;
    runs.wallClock = base === undefined ? { head } : { head, base };
  }
  const countedDir = found.counted[0];
  if (countedDir !== undefined)
    runs.counted = await countedRuns(countedDir, baseIsCounted ? baseResults : undefined, counted);
  return { ...runs, ...missingParts(expected, sources.length > 0, shards) };
}

/** What both the report action and `proxybench comment` are given: paths and their judging. */
type CommentSettings = SectionOptions & Pick<CommentRunsOptions, "floorPct" | "baseResults" | "expected">;

/** The PR comment of the runs behind these paths: read, `check`ed, compared and rendered. */
export async function commentFromPaths(
  paths: readonly string[],
  settings: CommentSettings,
  check: (runs: CommentRuns) => void = () => {},
): Promise<PrComment> {
  const runs = await loadCommentRuns(paths, pickDefined(settings, ["floorPct", "baseResults", "expected"]));
  check(runs);
  return buildPrComment(
    runs,
    pickDefined(settings, ["thresholdPct", "alpha", "baselineProxy", "runnerName"]),
  );
}
