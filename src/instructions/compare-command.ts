import { writeOutput } from "../report/output.js";
import { DEFAULT_FLOOR_PCT, DEFAULT_SPREAD_FACTOR } from "../stats/instructions-verdict.js";
import { UserError } from "../util/errors.js";
import { compareCountedRuns, countedRegressions } from "./compare.js";
import { renderCountedComparison } from "./compare-markdown.js";

/** `proxybench compare BASE HEAD` when both are counted runs (`run --measure instructions`). */

export interface CountedCompareOptions {
  floor?: string;
  spreadFactor?: string;
  format?: string;
  out?: string;
  failOnRegression?: boolean;
}

function parseNumber(flag: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < min) {
    throw new UserError(`${flag}: expected a number >= ${min}, got '${text}'`);
  }
  return value;
}

/** Returns the exit code: 1 when asked to fail on a regression (more work) and there is one. */
export async function runCountedCompare(
  baseDir: string,
  headDir: string,
  options: CountedCompareOptions,
): Promise<number> {
  const format = options.format ?? "markdown";
  if (format !== "markdown" && format !== "json") {
    throw new UserError(`--format: expected markdown or json, got '${format}'`);
  }
  const comparison = await compareCountedRuns(baseDir, headDir, {
    floorPct: parseNumber("--floor", options.floor, DEFAULT_FLOOR_PCT, 0),
    spreadFactor: parseNumber("--spread-factor", options.spreadFactor, DEFAULT_SPREAD_FACTOR, 0),
  });
  const text =
    format === "json" ? `${JSON.stringify(comparison, null, 2)}\n` : renderCountedComparison(comparison);
  await writeOutput(text, options.out);
  return options.failOnRegression && countedRegressions(comparison) > 0 ? 1 : 0;
}
