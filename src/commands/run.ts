import { Option, type Command } from "commander";
import * as engines from "../engines/index.js";
import { renderMarkdownReport } from "../report/markdown.js";
import { dryRun } from "../runner/dry-run.js";
import { runBenchmark } from "../runner/run.js";
import { addFlags, option, repetitionsOrAuto, toRequest, type MeasureFlags } from "./options.js";

/**
 * The modes `run` once had, each its own command now: given to `run`, an unknown option that
 * names the command to use instead.
 */
const MOVED = [
  {
    option: new Option("--measure [what]"),
    hint: "a counted run is its own command: proxybench count (run measures wall-clock time alone)",
  },
  {
    option: new Option("--study [name]"),
    hint: "a named study is its own command: proxybench study NAME",
  },
  {
    option: new Option("--find-max-rate"),
    hint: "the max-rate search is its own command: proxybench max-rate",
  },
  {
    option: new Option("--max-p99 [ms]"),
    hint: "it bounds the max-rate search: proxybench max-rate --max-p99 MS",
  },
];

export function register(program: Command): void {
  const command = program
    .command("run")
    .description(
      "Benchmark proxies x scenarios: health check, correctness probe, warm-up, then repetitions interleaved across proxies.",
    );
  addFlags(command, [
    "proxies",
    "scenarios",
    "engine",
    repetitionsOrAuto(
      "measured repetitions per cell (default: 11), or auto with --variant: the rounds a verdict needs",
    ),
    "duration",
    "warmup",
    "load",
    "cpus",
    "runtime",
    "imageTag",
    "proxiesDir",
    "scenariosDir",
    "variant",
    "variantProxiesDir",
    "variantScenariosDir",
    "roundOrder",
    "seed",
    "budget",
    "noiseLimit",
    "retries",
    "shard",
    "tls",
    option(
      "dryRun",
      "print the plan and its estimated wall time (and per shard count), run nothing",
    ).conflicts("resume"),
    "out",
    "resume",
  ]);
  for (const moved of MOVED) command.addOption(moved.option.hideHelp());
  command.action(runCommand);
}

async function runCommand(flags: MeasureFlags, command: Command): Promise<void> {
  const moved = MOVED.find((m) => command.getOptionValue(m.option.attributeName()) !== undefined);
  if (moved) {
    command.error(`error: unknown option '${moved.option.long}': ${moved.hint}`, {
      exitCode: 2,
      code: "commander.unknownOption",
    });
  }
  if (flags.dryRun) {
    await dryRun(toRequest(flags));
    return;
  }
  const outcome = await runBenchmark(toRequest(flags), {
    engines,
    renderReport: (results) => renderMarkdownReport(results),
  });
  process.exitCode = outcome.exitCode;
}
