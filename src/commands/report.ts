import type { Command } from "commander";
import { readMergedResults } from "../results/merge.js";
import { renderHtmlReportModel } from "../report/html.js";
import { reportJson } from "../report/json.js";
import { k6Report } from "../report/k6-summary.js";
import { renderReportModelMarkdown } from "../report/markdown.js";
import { buildReport, checkBaselineProxy, type ReportModel } from "../report/model.js";
import { writeOutput } from "../report/output.js";
import { readStudyRun, type StudyRun } from "../measures/study/read-run.js";
import { UserError } from "../util/errors.js";
import { choiceInput } from "../util/inputs.js";
import { collect, option, outAlias, withOutFile, type FlagValues } from "./options.js";
import { pickDefined } from "../util/objects.js";

const REPORT_FORMATS = ["markdown", "html", "json"] as const;

type ReportSettings = ReturnType<typeof reportSettings>;

interface RawOptions extends Pick<FlagValues, "baselineProxy" | "format"> {
  /** Each value with its lowest and highest across the repetitions. */
  spread?: boolean;
  /** --out-file (or its old spelling --out). */
  out?: string;
  k6Summary?: string[];
  scenario?: string;
}

/** Reads and checks the command's arguments; errors name the flag. */
export function reportSettings(dirs: string | string[] | undefined, options: RawOptions) {
  const list = dirs === undefined ? [] : typeof dirs === "string" ? [dirs] : dirs;
  const dir = list[0];
  const format = choiceInput("--format", options.format ?? "markdown", REPORT_FORMATS);
  const summaries = options.k6Summary ?? [];
  if (dir !== undefined && summaries.length > 0) {
    throw new UserError("give either RESULTS_DIR or --k6-summary, not both");
  }
  if (dir === undefined && summaries.length === 0) {
    throw new UserError("give a RESULTS_DIR or at least one --k6-summary NAME=FILE");
  }
  if (options.scenario !== undefined && summaries.length === 0) {
    throw new UserError("--scenario only applies to --k6-summary");
  }
  if (options.baselineProxy !== undefined && summaries.length > 0) {
    throw new UserError("--baseline-proxy does not apply to --k6-summary: the first summary is the baseline");
  }
  return {
    // One results directory, or several runs of one matrix (shards), merged; or k6 summaries.
    source:
      dir !== undefined
        ? { kind: "results" as const, dirs: list }
        : { kind: "k6" as const, summaries, ...pickDefined(options, ["scenario"]) },
    format,
    ...pickDefined(options, ["baselineProxy", "out", "spread"]),
  };
}

function renderReport(model: ReportModel, { format, spread }: ReportSettings): string {
  if (format === "json") return `${JSON.stringify(reportJson(model), null, 2)}\n`;
  if (format === "html") return renderHtmlReportModel(model, pickDefined({ spread }, ["spread"]));
  return renderReportModelMarkdown(model, pickDefined({ spread }, ["spread"]));
}

/**
 * The study run among the given folders, whose report is its study's table; a study given with
 * other folders, or with a flag its table has no place for, is an error naming it.
 */
async function studyRunOf(settings: ReportSettings, dirs: readonly string[]): Promise<StudyRun | undefined> {
  const dir = dirs[0];
  const study = dir === undefined ? undefined : await readStudyRun(dir);
  if (study === undefined) {
    for (const other of dirs.slice(1)) {
      const s = await readStudyRun(other);
      if (s) throw new UserError(`${other} is a study run (study ${s.name}): report it alone`);
    }
    return undefined;
  }
  if (dirs.length > 1) throw new UserError(`${dir} is a study run (study ${study.name}): report it alone`);
  if (settings.baselineProxy !== undefined)
    throw new UserError(
      `--baseline-proxy: ${dir} is a study run (study ${study.name}), whose table has its own`,
    );
  // A study whose results.json is the folder's own still has the plain report in HTML or JSON.
  if (settings.format !== "markdown" && study.dirs.length === 1 && study.dirs[0] === dir) return undefined;
  if (settings.format !== "markdown")
    throw new UserError(
      `--format ${settings.format}: ${dir} is a study run (study ${study.name}), reported as markdown only`,
    );
  return study;
}

async function runReport(settings: ReportSettings): Promise<void> {
  let model: ReportModel;
  if (settings.source.kind === "results") {
    const study = await studyRunOf(settings, settings.source.dirs);
    if (study !== undefined) return writeOutput(study.markdown, settings.out);
    const results = await readMergedResults(settings.source.dirs);
    if (settings.baselineProxy !== undefined) checkBaselineProxy(settings.baselineProxy, results);
    model = buildReport(results, pickDefined(settings, ["baselineProxy"]));
  } else {
    model = await k6Report(settings.source.summaries, pickDefined(settings.source, ["scenario"]));
  }
  await writeOutput(renderReport(model, settings), settings.out);
}

export function register(program: Command): void {
  program
    .command("report")
    .description(
      "Comparison and latency tables per scenario, from a results directory or from raw k6 summaries.",
    )
    .argument(
      "[results-dirs...]",
      "directory holding results.json (or the file itself); several: the shards of one run (--shard), merged; a study run's folder (proxybench study): its study's table",
    )
    .addOption(option("baselineProxy"))
    .addOption(option("format").choices(REPORT_FORMATS).default("markdown"))
    .addOption(option("outFile"))
    .addOption(outAlias())
    .option("--spread", "each value with its lowest and highest across the repetitions")
    .option(
      "--k6-summary <name=file>",
      "a k6 --summary-export or handleSummary JSON file, labelled NAME (repeat; the first is the baseline)",
      collect,
    )
    .option("--scenario <name>", "scenario name shown for --k6-summary tables")
    .action(async (dirs: string[], options: RawOptions & { outFile?: string }) => {
      await runReport(reportSettings(dirs.length > 0 ? dirs : undefined, withOutFile(options)));
    });
}
