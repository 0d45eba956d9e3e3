import type { RunRequest } from "../runner/settings.js";
import { pickDefined } from "../util/objects.js";
import { runInstructions } from "./run.js";
import { renderInstructionsMarkdown } from "./report.js";

/** `proxybench count`: runs the counted benchmark, prints its report, returns the exit code. */
export async function runInstructionsCommand(request: RunRequest): Promise<number> {
  const { exitCode, results } = await runInstructions(
    pickDefined(request, [
      "proxies",
      "scenarios",
      "repetitions",
      "cpus",
      "out",
      "proxiesDirs",
      "scenariosDirs",
      "variants",
      "runtime",
      "imageTag",
    ]),
  );
  process.stdout.write(renderInstructionsMarkdown(results));
  return exitCode;
}
