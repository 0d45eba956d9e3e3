import type { Command } from "commander";
import { renderInstructionsMarkdown } from "../measures/counted/report.js";
import { dryRunInstructions, runInstructions } from "../measures/counted/run.js";
import { addFlags, MATRIX_FLAGS, toRequest, type FlagValues } from "./options.js";

export function register(program: Command): void {
  const command = program
    .command("count")
    .description(
      "Count each proxy's instructions per request under Valgrind's callgrind, over a fixed sequence of requests (a counted run; docs/instructions.md).",
    );
  addFlags(command, [
    ["proxies", "nginx,haproxy"],
    ["scenarios", "passthrough"],
    ["repetitions", "5"],
    ...MATRIX_FLAGS,
    ["out", "results/<YYYYMMDD-HHMMSS>-instructions"],
    "dryRun",
  ]);
  // The counted run, then its report on stdout; exit code 1 when a cell is not ok.
  command.action(async (flags: FlagValues) => {
    if (flags.dryRun) return dryRunInstructions(toRequest(flags));
    const { exitCode, results } = await runInstructions(toRequest(flags));
    process.stdout.write(renderInstructionsMarkdown(results));
    process.exitCode = exitCode;
  });
}
