import type { Command } from "commander";
import { readResults } from "../results/io.js";
import { compareResults, DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT, hasRegression } from "../report/compare.js";
import { renderComparisonMarkdown } from "../report/compare-markdown.js";
import { writeOutput } from "../report/output.js";
import { UserError } from "../util/errors.js";

export const COMPARE_FORMATS = ["markdown", "json"] as const;
export type CompareFormat = (typeof COMPARE_FORMATS)[number];

export interface CompareSettings {
  baseDir: string;
  headDir: string;
  thresholdPct: number;
  alpha: number;
  failOnRegression: boolean;
  format: CompareFormat;
  out?: string;
}

interface RawOptions {
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
export function compareSettings(baseDir: string, headDir: string, options: RawOptions): CompareSettings {
  const format = options.format ?? "markdown";
  if (!(COMPARE_FORMATS as readonly string[]).includes(format)) {
    throw new UserError(`--format: expected one of ${COMPARE_FORMATS.join(", ")}, got '${format}'`);
  }
  const settings: CompareSettings = {
    baseDir,
    headDir,
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
  const base = await readResults(settings.baseDir);
  const head = await readResults(settings.headDir);
  const comparison = compareResults(base, head, {
    thresholdPct: settings.thresholdPct,
    alpha: settings.alpha,
  });
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
      "Head against base, per cell and metric: change, 95% interval, Mann-Whitney p-value, verdict.",
    )
    .argument("<base-dir>", "results directory (or results.json) of the baseline")
    .argument("<head-dir>", "results directory (or results.json) of the candidate")
    .option("--threshold <pct>", "smallest % change that counts", String(DEFAULT_THRESHOLD_PCT))
    .option("--alpha <a>", "significance level of the test", String(DEFAULT_ALPHA))
    .option("--fail-on-regression", "exit 1 when any metric regressed")
    .option("--format <format>", `output format: ${COMPARE_FORMATS.join(", ")}`, "markdown")
    .option("--out <file>", "write to this file instead of stdout")
    .action(async (baseDir: string, headDir: string, options: RawOptions) => {
      process.exitCode = await runCompare(compareSettings(baseDir, headDir, options));
    });
}
