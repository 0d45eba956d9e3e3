import type { Command } from "commander";
import { readResults } from "../results/io.js";
import {
  compareResults,
  compareVariants,
  DEFAULT_ALPHA,
  DEFAULT_THRESHOLD_PCT,
  hasRegression,
} from "../report/compare.js";
import { renderComparisonMarkdown } from "../report/compare-markdown.js";
import { writeOutput } from "../report/output.js";
import { UserError } from "../util/errors.js";
import { isInstructionsRun } from "../instructions/compare.js";
import { runCountedCompare, type CountedCompareOptions } from "../instructions/compare-command.js";

export const COMPARE_FORMATS = ["markdown", "json"] as const;
export type CompareFormat = (typeof COMPARE_FORMATS)[number];

export interface CompareSettings {
  /** Two runs (unpaired) or one run holding variants (paired). */
  dirs: [string] | [string, string];
  baseVariant?: string;
  headVariant?: string;
  thresholdPct: number;
  alpha: number;
  failOnRegression: boolean;
  format: CompareFormat;
  out?: string;
}

interface RawOptions {
  base?: string;
  head?: string;
  threshold?: string;
  alpha?: string;
  failOnRegression?: boolean;
  format?: string;
  out?: string;
}

function number(
  flag: string,
  text: string | undefined,
  fallback: number,
  ok: (x: number) => boolean,
  what: string,
) {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || !ok(value)) {
    throw new UserError(`${flag}: expected ${what}, got '${text}'`);
  }
  return value;
}

/** Reads and checks the command's arguments; errors name the flag. */
export function compareSettings(dirs: string[], options: RawOptions): CompareSettings {
  if (dirs.length === 0 || dirs.length > 2) {
    throw new UserError(
      `compare: expected RUN_DIR (a run with variants) or BASE_DIR HEAD_DIR (two runs), got ${dirs.length} arguments`,
    );
  }
  if (dirs.length === 2 && (options.base !== undefined || options.head !== undefined)) {
    throw new UserError("--base/--head pick variants of one run: give one RUN_DIR with them");
  }
  const format = options.format ?? "markdown";
  if (!(COMPARE_FORMATS as readonly string[]).includes(format)) {
    throw new UserError(`--format: expected one of ${COMPARE_FORMATS.join(", ")}, got '${format}'`);
  }
  const settings: CompareSettings = {
    dirs: dirs as CompareSettings["dirs"],
    ...(options.base !== undefined ? { baseVariant: options.base } : {}),
    ...(options.head !== undefined ? { headVariant: options.head } : {}),
    thresholdPct: number(
      "--threshold",
      options.threshold,
      DEFAULT_THRESHOLD_PCT,
      (x) => x >= 0,
      "a percentage >= 0",
    ),
    alpha: number("--alpha", options.alpha, DEFAULT_ALPHA, (x) => x > 0 && x < 1, "a number between 0 and 1"),
    failOnRegression: options.failOnRegression ?? false,
    format: format as CompareFormat,
  };
  if (options.out !== undefined) settings.out = options.out;
  return settings;
}

/** Returns the exit code: 1 when asked to fail on a regression and there is one. */
export async function runCompare(settings: CompareSettings): Promise<number> {
  const options = { thresholdPct: settings.thresholdPct, alpha: settings.alpha };
  const [first, second] = settings.dirs;
  const comparison =
    second === undefined
      ? compareVariants(await readResults(first), {
          ...options,
          ...(settings.baseVariant !== undefined ? { base: settings.baseVariant } : {}),
          ...(settings.headVariant !== undefined ? { head: settings.headVariant } : {}),
        })
      : compareResults(await readResults(first), await readResults(second), options);
  const text =
    settings.format === "json"
      ? `${JSON.stringify(comparison, null, 2)}\n`
      : renderComparisonMarkdown(comparison);
  await writeOutput(text, settings.out);
  return settings.failOnRegression && hasRegression(comparison) ? 1 : 0;
}

export function register(program: Command): void {
  program
    .command("compare")
    .description(
      "Head against base, per cell and metric: change, interval, p-value, verdict. One RUN_DIR holding variants (--variant): paired by round; two runs: unpaired.",
    )
    .argument(
      "<dirs...>",
      "RUN_DIR of a variant run, or BASE_DIR HEAD_DIR (results directories or results.json)",
    )
    .option("--base <variant>", "with one RUN_DIR: the baseline variant (default: 'base', else the first)")
    .option("--head <variant>", "with one RUN_DIR: the candidate variant (default: 'head', else the second)")
    .option("--threshold <pct>", "smallest % change that counts", String(DEFAULT_THRESHOLD_PCT))
    .option(
      "--alpha <a>",
      "chance of any false verdict in the whole comparison (split over its tests)",
      String(DEFAULT_ALPHA),
    )
    .option("--fail-on-regression", "exit 1 when any metric regressed")
    .option(
      "--format <format>",
      `output format: ${COMPARE_FORMATS.join(", ")}; counted runs also html (every changed function as an icicle chart)`,
      "markdown",
    )
    .option("--out <file>", "write to this file instead of stdout")
    .option(
      "--floor <pct>",
      "counted runs (--measure instructions): smallest % change that counts (default: 0.5)",
    )
    .option(
      "--spread-factor <k>",
      "counted runs: a change must exceed k x the repetitions' spread (default: 3)",
    )
    .action(async (dirs: string[], options: RawOptions & CountedCompareOptions) => {
      if ((dirs.length === 1 || dirs.length === 2) && (await isInstructionsRun(dirs[0] as string))) {
        process.exitCode = await runCountedCompare(dirs as [string] | [string, string], options);
        return;
      }
      process.exitCode = await runCompare(compareSettings(dirs, options));
    });
}
