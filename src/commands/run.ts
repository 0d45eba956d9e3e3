import { InvalidArgumentError, Option, type Command } from "commander";
import * as engines from "../engines/index.js";
import { Engine } from "../results/schema.js";
import { renderMarkdownReport } from "../report/markdown.js";
import { runBenchmark } from "../runner/run.js";
import { DEFAULT_PROXIES } from "../runner/plan.js";
import { parseRuntimeKind } from "../runner/runtime-factory.js";
import type { RunRequest } from "../runner/settings.js";
import { findMaxRates, type FindMaxRatesRequest } from "../studies/max-rate-run.js";
import { runAnyStudy, type StudyOverrides } from "../studies/run.js";
import { dryRun } from "../runner/dry-run.js";
import { dryRunMaxRate, dryRunStudy } from "../studies/dry-run.js";
import { parseShard, type Shard } from "../runner/shard.js";
import { parseVariant, withLayout } from "../runner/variants.js";
import { checkInstructionsFlags, runInstructionsCommand } from "../instructions/command.js";
import { UserError } from "../util/errors.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";
import {
  collect,
  parseCsv,
  parseNonNegativeInt,
  parseNonNegativeNumber,
  parsePositiveInt,
  parsePositiveNumber,
  parseSeconds,
} from "./options.js";

interface RunFlags {
  proxies?: string[];
  scenarios?: string[];
  engine?: Engine;
  repetitions?: number | "auto";
  budget?: number;
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
  study?: string;
  findMaxRate?: boolean;
  maxP99?: number;
  variant?: string[];
  variantProxiesDir?: string;
  variantScenariosDir?: string;
  noiseLimit?: number;
  retries?: number;
  roundOrder?: "abba" | "random";
  seed?: number;
  measure?: string;
  shard?: Shard;
  tls?: boolean;
  dryRun?: boolean;
}

export function register(program: Command): void {
  const command = program
    .command("run")
    .description(
      "Benchmark proxies x scenarios: health check, correctness probe, warm-up, then repetitions interleaved across proxies.",
    );
  addMatrixOptions(command);
  addVariantOptions(command);
  addModeOptions(command);
  command.action(runCommand);
}

/** What is measured: proxies, scenarios, engine, lengths, loads, cores, runtime and extra folders. */
function addMatrixOptions(command: Command): void {
  command
    .option("-p, --proxies <names>", "comma-separated proxies (default: direct,nginx,haproxy)", parseCsv)
    .option(
      "-s, --scenarios <names>",
      "comma-separated scenarios (default: passthrough,json-lookup)",
      parseCsv,
    )
    .addOption(
      new Option("-e, --engine <engine>", "load generator for every scenario").choices(Engine.options),
    )
    .option(
      "-r, --repetitions <n>",
      "measured repetitions per cell (default: 3; 10 with --variant), or auto with --variant: the rounds a verdict needs",
      parseRepetitions,
    )
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
    .option("--scenarios-dir <dir>", "extra folder of scenarios/<name>/scenario.yml (repeatable)", collect);
}

/** Variants side by side, their order, noise handling, sharding, TLS. */
function addVariantOptions(command: Command): void {
  command
    .option(
      "--variant <name=dir>",
      "measure this variant's proxies/ and scenarios/ side by side with the others, in rounds (repeatable; e.g. base=../main head=.)",
      collect,
    )
    .option(
      "--variant-proxies-dir <dir>",
      "where each variant's DIR holds its proxies, e.g. bench/proxies (default: proxies)",
    )
    .option(
      "--variant-scenarios-dir <dir>",
      "where each variant's DIR holds its scenarios, e.g. bench/scenarios (default: scenarios)",
    )
    .addOption(
      new Option("--round-order <order>", "order of the cells in each round (default: abba)").choices([
        "abba",
        "random",
      ]),
    )
    .option("--seed <n>", "seed of --round-order random (default: drawn and recorded)", parseNonNegativeInt)
    .option(
      "--budget <minutes>",
      "with --repetitions auto: more rounds, at looks planned before the run, while a metric is undecided, within this many minutes",
      parsePositiveNumber,
    )
    .option(
      "--noise-limit <cores>",
      "other processes' CPU plus steal on the pinned cores above which a repetition is noisy and measured again (default: 0.05)",
      parseNonNegativeNumber,
    )
    .option(
      "--retries <n>",
      "times a noisy repetition, or one that dropped iterations, is measured again (default: 2)",
      parseNonNegativeInt,
    )
    .option(
      "--shard <i/n>",
      "run the i-th of n parts of the matrix, split by cell (every variant of a cell in the same part), e.g. 2/3",
      (text: string) => {
        try {
          return parseShard(text);
        } catch (err) {
          throw new InvalidArgumentError((err as Error).message.replace(/^--shard: /, ""));
        }
      },
    )
    .option(
      "--tls",
      "also measure every scenario over TLS (HTTP/1.1 as https, gRPC as grpcs) on the client side of the proxies that declare it: their own rows, certificates made for the run",
    );
}

/** Where results go and which kind of run: dry run, resume, study, max-rate search, instructions. */
function addModeOptions(command: Command): void {
  command
    .option("--dry-run", "print the plan and its estimated wall time (and per shard count), run nothing")
    .option("-o, --out <dir>", "results directory (default: results/<YYYYMMDD-HHMMSS>)")
    .option("--resume <dir>", "finish the matrix of an interrupted run, with its recorded settings")
    .option(
      "--study <name>",
      "run a named study (studies/<name>/study.yml) with its own proxies, scenarios and loads",
    )
    .option(
      "--find-max-rate",
      "search each proxy's highest sustainable arrival rate (p99 under --max-p99, no errors) instead of a fixed load",
    )
    .option(
      "--max-p99 <ms>",
      "with --find-max-rate: the p99 latency a held rate stays under (default: 50)",
      parsePositiveNumber,
    )
    .addOption(
      new Option(
        "--measure <what>",
        "wall-clock (load, req/s and latency) or instructions (the proxy under callgrind, instructions per request)",
      ).choices(["wall-clock", "instructions"]),
    );
}

/** `--repetitions N` or `auto`. */
function parseRepetitions(text: string): number | "auto" {
  return text === "auto" ? "auto" : parsePositiveInt(text);
}

async function runCommand(flags: RunFlags): Promise<void> {
  if (flags.measure === "instructions") {
    if (flags.repetitions === "auto")
      throw new UserError("--measure instructions and --repetitions auto cannot be used together");
    checkInstructionsFlags(flags);
    process.exitCode = await runInstructionsCommand(toRequest(flags));
    return;
  }
  checkModes(flags);
  if (flags.dryRun && flags.study !== undefined) {
    await dryRunStudy(flags.study, studyOverrides(flags));
  } else if (flags.dryRun && flags.findMaxRate) {
    await dryRunMaxRate(maxRateRequest(flags));
  } else if (flags.dryRun) {
    await dryRun(toRequest(flags));
  } else if (flags.study !== undefined) {
    const outcome = await runAnyStudy(flags.study, studyOverrides(flags), { engines });
    process.exitCode = outcome.exitCode;
  } else if (flags.findMaxRate) {
    const outcomes = await findMaxRates(maxRateRequest(flags));
    // A search that found no rate at all is not a measurement.
    process.exitCode = outcomes.every((o) => o.result.rate !== undefined) ? 0 : 1;
  } else {
    const outcome = await runBenchmark(toRequest(flags), {
      engines,
      renderReport: (results) => renderMarkdownReport(results),
    });
    process.exitCode = outcome.exitCode;
  }
}

/** The searches `--find-max-rate` asks for. */
function maxRateRequest(flags: RunFlags): FindMaxRatesRequest {
  return {
    proxies: flags.proxies ?? DEFAULT_PROXIES,
    scenarios: flags.scenarios ?? ["passthrough"],
    ...withoutUndefined({
      cpus: flags.cpus,
      out: flags.out,
      durationS: flags.duration,
      warmupS: flags.warmup,
      maxP99Ms: flags.maxP99,
      proxiesDirs: flags.proxiesDir,
      scenariosDirs: flags.scenariosDir,
    }),
  };
}

/** Flags that do not go together, named in the error. */
export function checkModes(flags: RunFlags): void {
  const clash = (a: string, b: string) => {
    throw new UserError(`${a} and ${b} cannot be used together`);
  };
  if (flags.study !== undefined) {
    if (flags.repetitions === "auto") clash("--study", "--repetitions auto");
    if (flags.findMaxRate) clash("--study", "--find-max-rate");
    if (flags.resume !== undefined)
      clash("--study", "--resume (a study run resumes with --resume DIR alone)");
    if (flags.scenarios) clash("--study", "--scenarios (the study names its scenarios)");
    if (flags.scenariosDir) clash("--study", "--scenarios-dir");
    if (flags.engine) clash("--study", "--engine (the study names its engine)");
  }
  if (flags.findMaxRate) {
    if (flags.resume !== undefined) clash("--find-max-rate", "--resume");
    if (flags.engine && flags.engine !== "k6")
      clash("--find-max-rate", `--engine ${flags.engine} (the search drives k6's open model)`);
    if (flags.repetitions !== undefined) clash("--find-max-rate", "--repetitions");
    if (flags.load) clash("--find-max-rate", "--load (the search chooses the rates)");
    if (flags.runtime !== undefined && flags.runtime !== "native")
      clash("--find-max-rate", `--runtime ${flags.runtime}`);
  }
  if (flags.shard) {
    if (flags.study !== undefined) clash("--shard", "--study");
    if (flags.findMaxRate) clash("--shard", "--find-max-rate");
  }
  if (flags.dryRun && flags.resume !== undefined) clash("--dry-run", "--resume");
  if (flags.variant) {
    if (flags.study !== undefined) clash("--variant", "--study");
    if (flags.findMaxRate) clash("--variant", "--find-max-rate");
  }
  if (flags.maxP99 !== undefined && !flags.findMaxRate)
    throw new UserError("--max-p99 goes with --find-max-rate");
}

export function studyOverrides(flags: RunFlags): StudyOverrides {
  return pickDefined(toRequest(flags), [
    "proxies",
    "repetitions",
    "durationS",
    "warmupS",
    "loads",
    "cpus",
    "runtime",
    "imageTag",
    "proxiesDirs",
    "out",
    "noiseLimit",
    "retries",
  ]);
}

/** The flags as a RunRequest (absent where not given, so that --resume can tell). */
export function toRequest(flags: RunFlags): RunRequest {
  return withoutUndefined({
    proxies: flags.proxies,
    scenarios: flags.scenarios,
    engine: flags.engine,
    repetitions: flags.repetitions === "auto" ? undefined : flags.repetitions,
    autoRounds: flags.repetitions === "auto" ? true : undefined,
    budgetMinutes: flags.budget,
    durationS: flags.duration,
    warmupS: flags.warmup,
    loads: flags.load,
    cpus: flags.cpus,
    runtime: flags.runtime === undefined ? undefined : parseRuntimeKind(flags.runtime),
    imageTag: flags.imageTag,
    proxiesDirs: flags.proxiesDir,
    scenariosDirs: flags.scenariosDir,
    out: flags.out,
    resume: flags.resume,
    variants: variantsOf(flags),
    noiseLimit: flags.noiseLimit,
    retries: flags.retries,
    roundOrder: flags.roundOrder,
    seed: flags.seed,
    shard: flags.shard,
    tls: flags.tls,
  });
}

/** `--variant` with `--variant-proxies-dir`/`--variant-scenarios-dir` applied to each; none: undefined. */
function variantsOf(flags: RunFlags): RunRequest["variants"] {
  const variants = withLayout(
    (flags.variant ?? []).map((v) => parseVariant(v)),
    {
      proxiesDir: flags.variantProxiesDir,
      scenariosDir: flags.variantScenariosDir,
    },
  );
  return variants.length > 0 ? variants : undefined;
}
