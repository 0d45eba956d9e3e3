import type { Command } from "commander";
import * as engines from "../engines/index.js";
import { dryRunStudy } from "../measures/study/dry-run.js";
import { STUDY_OVERRIDES, type StudyOverrides } from "../measures/study/run.js";
import { runStudy } from "../measures/study/study.js";
import { pickDefined } from "../util/objects.js";
import { addFlags, PLACE_FLAGS, toRequest, type FlagValues } from "./options.js";

export function register(program: Command): void {
  const command = program
    .command("study")
    .argument("<name>", "the study, studies/<name>/study.yml (proxybench list shows them)")
    .description(
      "Run a named study again with its own proxies, scenarios, loads and engine, and report it in its published layout (an interrupted one: proxybench run --resume DIR).",
    );
  addFlags(command, [
    ["proxies", "the study's"],
    ["repetitions", "the study's"],
    ["duration", "the study's"],
    ["warmup", "the study's"],
    ["load", "the study's"],
    ...PLACE_FLAGS,
    "noiseLimit",
    "retries",
    "dryRun",
    ["out", "results/<YYYYMMDD-HHMMSS>; extensibility: results/extensibility-<YYYYMMDD-HHMMSS>"],
  ]);
  command.action(async (name: string, flags: FlagValues) => {
    if (flags.dryRun) return dryRunStudy(name, studyOverrides(flags));
    const outcome = await runStudy(name, studyOverrides(flags), { engines });
    process.exitCode = outcome.exitCode;
  });
}

/** What the flags change of the study's own settings. */
export function studyOverrides(flags: FlagValues): StudyOverrides {
  return pickDefined(toRequest(flags), STUDY_OVERRIDES);
}
