import type { Command } from "commander";
import { DEFAULT_MAX_P, DEFAULT_MIN_CHANGE_PCT, findChangesInFile } from "../changes/find.js";
import { changeCounts, renderChangesMarkdown } from "../report/change-points-markdown.js";
import { writeOutput } from "../report/output.js";
import { choiceInput, optionalNumberInput, PERCENTAGE, PROBABILITY } from "../util/inputs.js";
import { withoutUndefined } from "../util/objects.js";
import { option, textFlag, type FlagValues } from "./options.js";

const CHANGES_FORMATS = ["markdown", "json"] as const;

interface RawOptions extends Pick<FlagValues, "format" | "outFile" | "failOnRegression"> {
  maxP?: string;
  minChange?: string;
}

/** Reads and checks the command's arguments; errors name the flag. */
export function changesSettings(file: string, options: RawOptions) {
  return {
    /** The gh-pages data.js. */
    file,
    maxPValue: optionalNumberInput("--max-p", options.maxP, DEFAULT_MAX_P, PROBABILITY),
    minChangePct: optionalNumberInput("--min-change", options.minChange, DEFAULT_MIN_CHANGE_PCT, PERCENTAGE),
    format: choiceInput("--format", options.format ?? "markdown", CHANGES_FORMATS),
    failOnRegression: options.failOnRegression ?? false,
    ...withoutUndefined({ out: options.outFile }),
  };
}

/**
 * Writes the change points of the history (markdown, or the JSON of `SeriesChanges[]`) and
 * returns the exit code: 1 when asked to fail on a regression and there is one.
 */
async function runChanges(settings: ReturnType<typeof changesSettings>): Promise<number> {
  const series = await findChangesInFile(settings.file, settings);
  const text =
    settings.format === "json"
      ? `${JSON.stringify(series, null, 2)}\n`
      : renderChangesMarkdown({ source: settings.file, settings, series });
  await writeOutput(text, settings.out);
  return settings.failOnRegression && changeCounts(series).regressions > 0 ? 1 : 0;
}

export function register(program: Command): void {
  program
    .command("changes")
    .description(
      "Change points of a gh-pages history (a data.js of proxybench publish), by Apache Otava: per series, the commit range, the size of the change, its p-value and whether it is a regression",
    )
    .argument("<data.js>", "the history: data.js of a gh-pages branch")
    .addOption(
      textFlag("--max-p <p>", "largest p-value of a change point (Otava's threshold)", `${DEFAULT_MAX_P}`),
    )
    .addOption(
      textFlag(
        "--min-change <pct>",
        "smallest change of a segment's mean that counts, in %",
        `${DEFAULT_MIN_CHANGE_PCT}`,
      ),
    )
    .addOption(option("failOnRegression"))
    .addOption(option("format").choices(CHANGES_FORMATS).default("markdown"))
    .addOption(option("outFile"))
    .action(async (file: string, flags: RawOptions) => {
      process.exitCode = await runChanges(changesSettings(file, flags));
    });
}
