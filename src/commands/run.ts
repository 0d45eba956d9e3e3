import { Option, type Command } from "commander";
import * as engines from "../engines/index.js";
import { Engine } from "../results/schema.js";
import { renderMarkdownReport } from "../report/markdown.js";
import { runBenchmark } from "../runner/run.js";
import { parseRuntimeKind } from "../runner/runtime-factory.js";
import type { RunRequest } from "../runner/settings.js";
import { collect, parseCsv, parsePositiveInt, parseSeconds } from "./options.js";

interface RunFlags {
  proxies?: string[];
  scenarios?: string[];
  engine?: Engine;
  repetitions?: number;
  duration?: number;
  warmup?: number;
  load?: string[];
  cpus?: string;
  runtime?: string;
  imageTag?: string;
  proxiesDir?: string[];
  scenariosDir?: string[];
  out?: string;
  resume?: string;
}

export function register(program: Command): void {
  program
    .command("run")
    .description(
      "Benchmark proxies x scenarios: health check, correctness probe, warm-up, then repetitions interleaved across proxies.",
    )
    .option("-p, --proxies <names>", "comma-separated proxies (default: direct,nginx,haproxy)", parseCsv)
    .option(
      "-s, --scenarios <names>",
      "comma-separated scenarios (default: passthrough,json-lookup)",
      parseCsv,
    )
    .addOption(
      new Option("-e, --engine <engine>", "load generator for every scenario").choices(Engine.options),
    )
    .option("-r, --repetitions <n>", "measured repetitions per cell (default: 3)", parsePositiveInt)
    .option(
      "-d, --duration <seconds>",
      "length of each repetition (default: the scenario's)",
      parseSeconds(false),
    )
    .option(
      "-w, --warmup <seconds>",
      "length of the discarded warm-up, 0 for none (default: the scenario's)",
      parseSeconds(true),
    )
    .option("-l, --load <labels>", "comma-separated load levels (default: each scenario's first)", parseCsv)
    .option("--cpus <layout>", "cores per role, e.g. loadgen=0,proxy=1,upstream=1 (ranges 2-3, lists 0+2)")
    .option("--runtime <runtime>", "native or docker (default: native)")
    .option(
      "--image-tag <tag>",
      "image tag of the proxies in a docker run (default: $PROXYBENCH_IMAGE_TAG or local)",
    )
    .option("--proxies-dir <dir>", "extra folder of proxies/<name>/proxy.yml (repeatable)", collect)
    .option("--scenarios-dir <dir>", "extra folder of scenarios/<name>/scenario.yml (repeatable)", collect)
    .option("-o, --out <dir>", "results directory (default: results/<YYYYMMDD-HHMMSS>)")
    .option("--resume <dir>", "finish the matrix of an interrupted run, with its recorded settings")
    .action(async (flags: RunFlags) => {
      const outcome = await runBenchmark(toRequest(flags), {
        engines,
        renderReport: (results) => renderMarkdownReport(results),
      });
      process.exitCode = outcome.exitCode;
    });
}

/** The flags as a RunRequest (undefined where not given, so that --resume can tell). */
export function toRequest(flags: RunFlags): RunRequest {
  return {
    ...(flags.proxies ? { proxies: flags.proxies } : {}),
    ...(flags.scenarios ? { scenarios: flags.scenarios } : {}),
    ...(flags.engine ? { engine: flags.engine } : {}),
    ...(flags.repetitions !== undefined ? { repetitions: flags.repetitions } : {}),
    ...(flags.duration !== undefined ? { durationS: flags.duration } : {}),
    ...(flags.warmup !== undefined ? { warmupS: flags.warmup } : {}),
    ...(flags.load ? { loads: flags.load } : {}),
    ...(flags.cpus !== undefined ? { cpus: flags.cpus } : {}),
    ...(flags.runtime !== undefined ? { runtime: parseRuntimeKind(flags.runtime) } : {}),
    ...(flags.imageTag !== undefined ? { imageTag: flags.imageTag } : {}),
    ...(flags.proxiesDir ? { proxiesDirs: flags.proxiesDir } : {}),
    ...(flags.scenariosDir ? { scenariosDirs: flags.scenariosDir } : {}),
    ...(flags.out !== undefined ? { out: flags.out } : {}),
    ...(flags.resume !== undefined ? { resume: flags.resume } : {}),
  };
}
