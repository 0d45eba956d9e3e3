import { Option, type Command } from "commander";
import * as engines from "../engines/index.js";
import { renderMarkdownReport } from "../report/markdown.js";
import { DEFAULT_REPETITIONS } from "../runner/plan.js";
import { DEFAULT_BUDGET_MINUTES } from "../stats/tested-metrics.js";
import { dryRunBenchmark, runBenchmark } from "../measures/wall-clock/run.js";
import { addFlags, MATRIX_FLAGS, option, repetitionsOrAuto, runRequest, type FlagValues } from "./options.js";

/**
 * The modes `run` once had, each its own command now: given to `run`, an unknown option that
 * names the command to use instead (hidden; the other hidden flags are old spellings that work).
 */
export const MOVED = [
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
      `${DEFAULT_REPETITIONS}; with --variant, auto within a ${DEFAULT_BUDGET_MINUTES}-minute budget`,
    ),
    "duration",
    "warmup",
    "load",
    ...MATRIX_FLAGS,
    "roundOrder",
    "seed",
    "proxyLifetime",
    "testMetrics",
    "budget",
    "target",
    "noiseLimit",
    "retries",
    "shard",
    "tls",
    option("dryRun").conflicts("resume"),
    "out",
    "resume",
  ]);
  for (const moved of MOVED) command.addOption(moved.option.hideHelp());
  command.action(runCommand);
}

async function runCommand(flags: FlagValues, command: Command): Promise<void> {
  const moved = MOVED.find((m) => command.getOptionValue(m.option.attributeName()) !== undefined);
  if (moved) {
    command.error(`error: unknown option '${moved.option.long}': ${moved.hint}`, {
      exitCode: 2,
      code: "commander.unknownOption",
    });
  }
  if (flags.dryRun) return dryRunBenchmark(runRequest(flags), { engines });
  const outcome = await runBenchmark(runRequest(flags), {
    engines,
    renderReport: (results) => renderMarkdownReport(results),
  });
  process.exitCode = outcome.exitCode;
}
