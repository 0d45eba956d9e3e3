import * as core from "@actions/core";
import { getSettings } from "./input-helper.js";
import { report } from "./report.js";

/** The action: read the inputs, report, set the outputs; one place turns any error into a failed step. */
export async function run(): Promise<void> {
  try {
    const settings = getSettings();
    const outcome = await report(settings, {
      log: (line) => core.info(line),
      warn: (line) => core.warning(line),
    });
    core.setOutput("verdict", outcome.verdict);
    core.setOutput("regressions", String(outcome.regressions));
    core.setOutput("comment-url", outcome.commentUrl);
    if (outcome.failure !== undefined) core.setFailed(outcome.failure);
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error));
  }
}
