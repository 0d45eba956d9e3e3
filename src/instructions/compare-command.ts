import { writeOutput } from "../report/output.js";
import { DEFAULT_FLOOR_PCT, DEFAULT_SPREAD_FACTOR } from "../stats/instructions-verdict.js";
import { UserError } from "../util/errors.js";
import { choiceInput, NON_NEGATIVE, optionalNumberInput } from "../util/inputs.js";
import { compareCountedRuns, compareCountedVariants, countedRegressions } from "./compare.js";
import { renderCountedComparisonHtml } from "./compare-html.js";
import { renderCountedComparison } from "./compare-markdown.js";
import { pickDefined } from "../util/objects.js";

/** `proxybench compare BASE HEAD` when both are counted runs (`proxybench count`). */

/** Output formats of a counted comparison (html: every changed function as an icicle chart). */
const COUNTED_FORMATS = ["markdown", "json", "html"] as const;

export interface CountedCompareOptions {
  floor?: string;
  spreadFactor?: string;
  format?: string;
  out?: string;
  failOnRegression?: boolean;
  /** With one RUN_DIR holding variants: the baseline and candidate variants. */
  base?: string;
  head?: string;
}

/**
 * `compare BASE HEAD` (two counted runs) or `compare RUN_DIR` (one counted run with variants).
 * Returns the exit code: 1 when asked to fail on a regression (more work) and there is one.
 */
export async function runCountedCompare(
  dirs: [string] | [string, string],
  options: CountedCompareOptions,
): Promise<number> {
  const format = choiceInput("--format", options.format ?? "markdown", COUNTED_FORMATS);
  const verdict = {
    // The HTML page charts every function that changed; the others keep the top ten.
    ...(format === "html" ? { whereTop: Infinity } : {}),
    floorPct: optionalNumberInput("--floor", options.floor, DEFAULT_FLOOR_PCT, NON_NEGATIVE),
    spreadFactor: optionalNumberInput(
      "--spread-factor",
      options.spreadFactor,
      DEFAULT_SPREAD_FACTOR,
      NON_NEGATIVE,
    ),
  };
  const [first, second] = dirs;
  if (second !== undefined && (options.base !== undefined || options.head !== undefined)) {
    throw new UserError("--base/--head pick variants of one run: give one RUN_DIR with them");
  }
  const comparison =
    second === undefined
      ? await compareCountedVariants(first, { ...verdict, ...pickDefined(options, ["base", "head"]) })
      : await compareCountedRuns(first, second, verdict);
  const text =
    format === "json"
      ? `${JSON.stringify(comparison, null, 2)}\n`
      : format === "html"
        ? renderCountedComparisonHtml(comparison)
        : renderCountedComparison(comparison);
  await writeOutput(text, options.out);
  return options.failOnRegression && countedRegressions(comparison) > 0 ? 1 : 0;
}
