import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import {
  compareCountedRuns,
  compareCountedVariants,
  isInstructionsRun,
  readInstructions,
  type CountedComparison,
  type CountedOptions,
} from "../instructions/compare.js";
import { INSTRUCTIONS_FILE } from "../instructions/schema.js";
import { readResults, RESULTS_FILE } from "../results/io.js";
import { readMergedResults } from "../results/merge.js";
import { readStudyRun, type StudyRun } from "../studies/read-run.js";
import { UserError } from "../util/errors.js";
import { buildPrComment, type CommentRuns, type PrComment, type PrCommentOptions } from "./pr-comment.js";
import { pickDefined } from "../util/objects.js";

/**
 * The runs a pull request's comment reports, read from what the benchmark left: wall-clock
 * results (results.json, one folder per shard) and a counted run (instructions.json), given as
 * folders or as a folder of artifact folders (the report action downloads every artifact into
 * one). The counted comparison is made here (it reads callgrind files: where the work went).
 */

export interface CommentRunsOptions extends CountedOptions {
  /** A base run measured at another time: wall-clock (results.json) or counted (instructions.json). */
  baseResults?: string;
}

interface Found {
  wallClock: string[];
  counted: string[];
  /** Study runs, recognised by their results' settings.study (src/studies/read-run.ts). */
  studies: StudyRun[];
}

/** The study's table is rendered a level below the comment's sections. */
const STUDY_HEADING_LEVEL = 4;

/** Sorts one given path into wall-clock and counted runs, looking one level down in a folder of artifacts. */
async function sortPath(p: string, found: Found): Promise<void> {
  const info = await stat(p).catch(() => undefined);
  if (info === undefined) throw new UserError(`${p}: no such results directory or file`);
  if (await isInstructionsRun(p)) return void found.counted.push(p);
  const study = await readStudyRun(p, { headingLevel: STUDY_HEADING_LEVEL });
  if (study !== undefined) return void found.studies.push(study);
  if (!info.isDirectory() || existsSync(path.join(p, RESULTS_FILE))) return void found.wallClock.push(p);
  const inside = (await readdir(p, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  let any = false;
  for (const name of inside.sort()) {
    const dir = path.join(p, name);
    const study = await readStudyRun(dir, { headingLevel: STUDY_HEADING_LEVEL });
    if (study !== undefined) found.studies.push(study);
    else if (existsSync(path.join(dir, RESULTS_FILE))) found.wallClock.push(dir);
    else if (existsSync(path.join(dir, INSTRUCTIONS_FILE))) found.counted.push(dir);
    else continue;
    any = true;
  }
  if (!any)
    throw new UserError(`${p}: holds no ${RESULTS_FILE} or ${INSTRUCTIONS_FILE}, nor folders that do`);
}

/** A study run is reported alone: its table is no comparison with a base, nor one of two studies. */
function checkStudyAlone(found: Found): void {
  const [study, ...others] = found.studies;
  if (study === undefined) return;
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
}

/** The counted comparison: against a counted base run, else the run's own variants, else none. */
async function countedComparison(
  dir: string,
  baseDir: string | undefined,
  options: CountedOptions,
): Promise<CountedComparison | undefined> {
  if (baseDir !== undefined) return compareCountedRuns(baseDir, dir, options);
  const { results } = await readInstructions(dir);
  const variants = new Set(results.cells.flatMap((c) => (c.variant === undefined ? [] : [c.variant])));
  return variants.size >= 2 ? compareCountedVariants(dir, options) : undefined;
}

/** Reads the runs behind a comment; errors name the path. */
export async function loadCommentRuns(
  paths: readonly string[],
  options: CommentRunsOptions = {},
): Promise<CommentRuns> {
  const found: Found = { wallClock: [], counted: [], studies: [] };
  for (const p of paths) await sortPath(p, found);
  checkStudyAlone(found);
  const [study] = found.studies;
  if (study !== undefined && options.baseResults !== undefined)
    throw new UserError(
      `${study.dirs[0]}: a study run compares its options within the run: give no base results`,
    );
  if (study !== undefined) return { study };
  if (found.counted.length > 1) {
    throw new UserError(
      `more than one counted run (${found.counted.join(", ")}): give one ${INSTRUCTIONS_FILE}`,
    );
  }
  const { baseResults, ...counted } = options;
  const baseIsCounted = baseResults !== undefined && (await isInstructionsRun(baseResults));
  const runs: CommentRuns = {};
  if (found.wallClock.length > 0) {
    const head = await readMergedResults(found.wallClock);
    const base = baseResults !== undefined && !baseIsCounted ? await readResults(baseResults) : undefined;
    runs.wallClock = base === undefined ? { head } : { head, base };
  }
  const countedDir = found.counted[0];
  if (countedDir !== undefined) {
    const { results: head } = await readInstructions(countedDir);
    const comparison = await countedComparison(countedDir, baseIsCounted ? baseResults : undefined, counted);
    runs.counted = comparison === undefined ? { head } : { head, comparison };
  }
  return runs;
}

/** What both the report action and `proxybench comment` are given: paths and their judging. */
interface CommentSettings extends PrCommentOptions {
  floorPct?: number;
  baseResults?: string;
}

/** The PR comment of the runs behind these paths: read, `check`ed, compared and rendered. */
export async function commentFromPaths(
  paths: readonly string[],
  settings: CommentSettings,
  check: (runs: CommentRuns) => void = () => {},
): Promise<PrComment> {
  const runs = await loadCommentRuns(paths, pickDefined(settings, ["floorPct", "baseResults"]));
  check(runs);
  return buildPrComment(
    runs,
    pickDefined(settings, ["thresholdPct", "alpha", "baselineProxy", "runnerName"]),
  );
}
