import { Option, type Command } from "commander";
import { mergeResults, readSources, type Source } from "../results/merge.js";
import { variantNames } from "../results/variants.js";
import { compareResults, compareVariants, type Comparison } from "../report/compare.js";
import { findChanges, lastSegmentStarts, readDataJs } from "../changes/find.js";
import { historyFromData, type RunHistory } from "../report/compare-history.js";
import { renderComparisonMarkdown } from "../report/compare-markdown.js";
import { writeOutput } from "../report/output.js";
import { UserError } from "../util/errors.js";
import { choiceInput, NON_NEGATIVE, optionalNumberInput } from "../util/inputs.js";
import {
  compareCountedRuns,
  compareCountedVariants,
  DEFAULT_SPREAD_FACTOR,
  isInstructionsRun,
  verdictCounts,
} from "../measures/counted/compare.js";
import { renderCountedComparisonHtml } from "../measures/counted/compare-html.js";
import { renderCountedComparison } from "../measures/counted/compare-markdown.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";
import { addFlags, judging, outAlias, ownFlag, textFlag, withOutFile, type FlagValues } from "./options.js";

const COMPARE_FORMATS = ["markdown", "json"] as const;
/** Output formats of a counted comparison (html: every changed function as an icicle chart). */
const COUNTED_FORMATS = ["markdown", "json", "html"] as const;

/** The shared flags as `FLAGS` types them; `floor` is a counted run's, refused for wall-clock runs. */
interface RawOptions extends Pick<
  FlagValues,
  "floor" | "threshold" | "alpha" | "failOnRegression" | "format"
> {
  /** A counted run's, refused for wall-clock runs: their comparison has no spread factor. */
  spreadFactor?: string;
  /** Of a run holding variants: the baseline and candidate variants. */
  base?: string;
  head?: string;
  /** --out-file (or its old spelling --out). */
  out?: string;
  history?: string;
}

/** What a wall-clock comparison was asked: two runs (unpaired), or one run holding variants, or its shards (paired). */
type CompareSettings = ReturnType<typeof compareSettings>;

/** Reads and checks the command's arguments; errors name the flag. */
export function compareSettings(dirs: string[], options: RawOptions) {
  if (dirs.length === 0) {
    throw new UserError(
      "compare: expected RUN_DIR... (a run with variants, or its shards) or BASE_DIR HEAD_DIR (two runs)",
    );
  }
  for (const [flag, value] of [
    ["--floor", options.floor],
    ["--spread-factor", options.spreadFactor],
  ] as const) {
    if (value !== undefined) {
      throw new UserError(
        `${flag} applies to counted runs (proxybench count); these are wall-clock runs: their smallest change that counts is --threshold`,
      );
    }
  }
  if (options.format === "html") {
    throw new UserError("--format html is for counted runs (proxybench count); these are wall-clock runs");
  }
  const format = choiceInput("--format", options.format ?? "markdown", COMPARE_FORMATS);
  const { thresholdPct, alpha } = judging(options);
  return {
    dirs,
    ...withoutUndefined({ baseVariant: options.base, headVariant: options.head }),
    thresholdPct,
    alpha,
    failOnRegression: options.failOnRegression ?? false,
    format,
    ...pickDefined(options, ["out", "history"]),
  };
}

/**
 * The comparison of the runs given: runs holding variants (one run, or the shards of one) are
 * merged and paired by round; two runs without variants are compared unpaired (pure).
 */
function compareRuns(
  sources: readonly Source[],
  settings: Pick<CompareSettings, "thresholdPct" | "alpha" | "baseVariant" | "headVariant">,
  history?: RunHistory,
): Comparison {
  const options = { thresholdPct: settings.thresholdPct, alpha: settings.alpha };
  const plain = sources.filter((s) => variantNames(s.results).length === 0);
  if (sources.length === 1 || plain.length === 0) {
    if (history !== undefined) {
      throw new UserError(
        "--history goes with two runs (BASE_DIR HEAD_DIR): a variant run is paired and needs none",
      );
    }
    return compareVariants(mergeResults(sources), {
      ...options,
      ...withoutUndefined({ base: settings.baseVariant, head: settings.headVariant }),
      from: sources.map((s) => s.from).join(", "),
    });
  }
  if (plain.length === 2 && sources.length === 2) {
    if (settings.baseVariant !== undefined || settings.headVariant !== undefined) {
      throw new UserError("--base/--head pick variants of a variant run: these two runs hold none");
    }
    return compareResults(sources[0]!.results, sources[1]!.results, {
      ...options,
      ...(history !== undefined ? { history } : {}),
    });
  }
  throw new UserError(
    `compare: ${plain.map((s) => s.from).join(", ")} hold${plain.length === 1 ? "s" : ""} no variants: give the shards of one variant run, or exactly two runs (BASE_DIR HEAD_DIR)`,
  );
}

/**
 * `--history FILE`: a gh-pages data.js, each series from its last change point (Apache Otava);
 * errors name the flag and the file.
 */
async function readHistory(file: string): Promise<RunHistory> {
  const data = await readDataJs(file, `--history ${file}`);
  const starts = lastSegmentStarts(await findChanges(data));
  return historyFromData(data, `${file} (each series from its last change point)`, starts);
}

/** Returns the exit code: 1 when asked to fail on a regression and there is one. */
export async function runCompare(settings: CompareSettings): Promise<number> {
  const sources = await readSources(settings.dirs);
  const history = settings.history === undefined ? undefined : await readHistory(settings.history);
  const comparison = compareRuns(sources, settings, history);
  const text =
    settings.format === "json"
      ? `${JSON.stringify(comparison, null, 2)}\n`
      : renderComparisonMarkdown(comparison);
  await writeOutput(text, settings.out);
  return settings.failOnRegression && comparison.counts.regressed > 0 ? 1 : 0;
}

/**
 * `compare BASE HEAD` (two counted runs, proxybench count) or `compare RUN_DIR` (one counted run
 * with variants). Returns the exit code: 1 when asked to fail on a regression (more work) and there is one.
 */
export async function runCountedCompare(
  dirs: [string] | [string, string],
  options: RawOptions,
): Promise<number> {
  const format = choiceInput("--format", options.format ?? "markdown", COUNTED_FORMATS);
  const verdict = {
    // The HTML page charts every function that changed; the others keep the top ten.
    ...(format === "html" ? { whereTop: Infinity } : {}),
    floorPct: judging(options).floorPct,
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
  return options.failOnRegression && verdictCounts(comparison)["more-work"] > 0 ? 1 : 0;
}

export function register(program: Command): void {
  const command = program
    .command("compare")
    .description(
      "Head against base, per cell and metric: change, interval, p-value, verdict. A RUN_DIR holding variants (--variant), or the shards of one (--shard): paired by round; two runs: unpaired.",
    )
    .argument(
      "<dirs...>",
      "RUN_DIR of a variant run (or one per shard), or BASE_DIR HEAD_DIR (results directories or results.json)",
    );
  addFlags(command, [
    textFlag("--base <variant>", "of a variant run: the baseline variant", "base, else the first"),
    textFlag("--head <variant>", "of a variant run: the candidate variant", "head, else the second"),
    "threshold",
    "alpha",
    "failOnRegression",
    new Option(
      "--history <data.js>",
      "two runs: a gh-pages data.js of past runs of the same cells (proxybench publish), the spread between runs that a verdict needs",
    ),
    ownFlag("format", "output format; html for counted runs only: every changed function as an icicle chart")
      .choices(COUNTED_FORMATS)
      .default("markdown"),
    "outFile",
    outAlias(),
    "floor",
    textFlag(
      "--spread-factor <k>",
      "counted runs: a change must exceed k x the repetitions' spread",
      `${DEFAULT_SPREAD_FACTOR}`,
    ),
  ]);
  command.action(async (dirs: string[], flags: RawOptions & { outFile?: string }) => {
    const options = withOutFile(flags);
    if ((dirs.length === 1 || dirs.length === 2) && (await isInstructionsRun(dirs[0] as string))) {
      process.exitCode = await runCountedCompare(dirs as [string] | [string, string], options);
      return;
    }
    process.exitCode = await runCompare(compareSettings(dirs, options));
  });
}
