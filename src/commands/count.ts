import type { Command } from "commander";
import { renderInstructionsMarkdown } from "../instructions/report.js";
import { runInstructions } from "../instructions/run.js";
import { addFlags, toRequest, type MeasureFlags } from "./options.js";

export function register(program: Command): void {
  const command = program
    .command("count")
    .description(
      "Count each proxy's instructions per request under Valgrind's callgrind, over a fixed sequence of requests (a counted run; docs/instructions.md).",
    );
  addFlags(command, [
    ["proxies", "comma-separated proxies (default: nginx,haproxy)"],
    ["scenarios", "comma-separated scenarios (default: passthrough)"],
    ["repetitions", "counted repetitions per cell (default: 5)"],
    "cpus",
    "runtime",
    ["imageTag", "image tag of the proxies in a docker count (default: $PROXYBENCH_IMAGE_TAG or local)"],
    "proxiesDir",
    "scenariosDir",
    [
      "variant",
      "count this variant's proxies/ and scenarios/ side by side with the others, in ABBA rounds (repeatable; e.g. base=../main head=.)",
    ],
    "variantProxiesDir",
    "variantScenariosDir",
    "out",
  ]);
  // The counted run, then its report on stdout; exit code 1 when a cell is not ok.
  command.action(async (flags: MeasureFlags) => {
    const { exitCode, results } = await runInstructions(toRequest(flags));
    process.stdout.write(renderInstructionsMarkdown(results));
    process.exitCode = exitCode;
  });
}
