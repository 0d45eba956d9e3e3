import { InvalidArgumentError, Option, type Command } from "commander";
import { Engine } from "../results/schema.js";
import { parseRuntimeKind } from "../runner/runtime-factory.js";
import type { RunRequest } from "../runner/settings.js";
import { parseShard, type Shard } from "../runner/shard.js";
import { parseVariant, withLayout } from "../runner/variants.js";
import {
  ALL_METRICS,
  DEFAULT_BUDGET_MINUTES,
  DEFAULT_TARGET_PCT,
  PRIMARY_METRICS,
  type CompareMetric,
} from "../stats/tested-metrics.js";
import { withoutUndefined } from "../util/objects.js";

/** Strict parsers for commander options; their errors name the value (commander adds the flag). */

function parseCsv(value: string): string[] {
  const items = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError("expected a comma-separated list of names");
  return items;
}

/** `--test-metrics`: metric names, or `all`; an unknown name is refused with the known ones. */
function parseTestedMetrics(value: string): CompareMetric[] {
  const names = parseCsv(value);
  if (names.length === 1 && names[0] === "all") return [...ALL_METRICS];
  const unknown = names.filter((n) => !(ALL_METRICS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown metric '${unknown[0]}' (known: ${ALL_METRICS.join(", ")}, or all)`,
    );
  }
  return [...new Set(names)] as CompareMetric[];
}

/** A parser of a number flag: digits only when `whole`, in range when `ok`; `what` names it in errors. */
function numberFlag(what: string, ok: (n: number) => boolean, whole = false) {
  return (value: string): number => {
    const text = value.trim();
    const n = Number(text);
    if (!(whole ? /^\d+$/.test(text) : text !== "" && Number.isFinite(n)) || !ok(n)) {
      throw new InvalidArgumentError(`'${value}' is not ${what}`);
    }
    return n;
  };
}

export const parsePositiveInt = numberFlag("a positive whole number", (n) => n >= 1, true);
export const parseNonNegativeInt = numberFlag("a whole number >= 0", () => true, true);
const parsePositiveNumber = numberFlag("a number above 0", (n) => n > 0);
const parseNonNegativeNumber = numberFlag("a number >= 0", (n) => n >= 0);

function parseSeconds(allowZero: boolean) {
  return (value: string): number => {
    const n = Number(value.trim().replace(/s$/, ""));
    if (value.trim() === "" || !Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) {
      throw new InvalidArgumentError(`'${value}' is not a number of seconds${allowZero ? "" : " above 0"}`);
    }
    return n;
  };
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `--repetitions N`, or `auto` where a command allows it. */
function parseRepetitions(text: string): number | "auto" {
  return text === "auto" ? "auto" : parsePositiveInt(text);
}

function parseShardFlag(text: string): Shard {
  try {
    return parseShard(text);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message.replace(/^--shard: /, ""));
  }
}

/** The flags of the measuring commands (run, count, study, max-rate) as commander types them. */
export interface MeasureFlags {
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
  maxP99?: number;
  variant?: string[];
  variantProxiesDir?: string;
  variantScenariosDir?: string;
  noiseLimit?: number;
  retries?: number;
  roundOrder?: "abba" | "random";
  seed?: number;
  proxyLifetime?: "round" | "block";
  testMetrics?: CompareMetric[];
  target?: number;
  shard?: Shard;
  tls?: boolean;
  dryRun?: boolean;
}

/**
 * Every flag of the measuring commands, and those other commands share, spelled once. Each
 * command adds the ones it reads (`addFlags`), so a flag that means nothing to it is an unknown
 * option there.
 */
const FLAGS = {
  proxies: () =>
    new Option("-p, --proxies <names>", "comma-separated proxies (default: direct,nginx,haproxy)").argParser(
      parseCsv,
    ),
  scenarios: () =>
    new Option(
      "-s, --scenarios <names>",
      "comma-separated scenarios (default: passthrough,json-lookup)",
    ).argParser(parseCsv),
  engine: () =>
    new Option("-e, --engine <engine>", "load generator for every scenario").choices(Engine.options),
  repetitions: () =>
    new Option("-r, --repetitions <n>", "measured repetitions per cell").argParser(parsePositiveInt),
  duration: () =>
    new Option("-d, --duration <seconds>", "length of each repetition (default: the scenario's)").argParser(
      parseSeconds(false),
    ),
  warmup: () =>
    new Option(
      "-w, --warmup <seconds>",
      "length of the discarded warm-up, 0 for none (default: the scenario's)",
    ).argParser(parseSeconds(true)),
  load: () =>
    new Option(
      "-l, --load <labels>",
      "comma-separated load levels (default: each scenario's first)",
    ).argParser(parseCsv),
  cpus: () =>
    new Option(
      "--cpus <layout>",
      "cores per role, e.g. loadgen=0,proxy=1,upstream=1 (ranges 2-3, lists 0+2)",
    ),
  runtime: () => new Option("--runtime <runtime>", "native or docker (default: native)"),
  imageTag: () =>
    new Option(
      "--image-tag <tag>",
      "image tag of the proxies in a docker run (default: $PROXYBENCH_IMAGE_TAG or local)",
    ),
  proxiesDir: () =>
    new Option("--proxies-dir <dir>", "extra folder of proxies/<name>/proxy.yml (repeatable)").argParser(
      collect,
    ),
  scenariosDir: () =>
    new Option(
      "--scenarios-dir <dir>",
      "extra folder of scenarios/<name>/scenario.yml (repeatable)",
    ).argParser(collect),
  variant: () =>
    new Option(
      "--variant <name=dir>",
      "measure this variant's proxies/ and scenarios/ side by side with the others, in rounds (repeatable; e.g. base=../main head=.)",
    ).argParser(collect),
  variantProxiesDir: () =>
    new Option(
      "--variant-proxies-dir <dir>",
      "where each variant's DIR holds its proxies, e.g. bench/proxies (default: proxies)",
    ),
  variantScenariosDir: () =>
    new Option(
      "--variant-scenarios-dir <dir>",
      "where each variant's DIR holds its scenarios, e.g. bench/scenarios (default: scenarios)",
    ),
  roundOrder: () =>
    new Option("--round-order <order>", "order of the cells in each round (default: abba)").choices([
      "abba",
      "random",
    ]),
  seed: () =>
    new Option("--seed <n>", "seed of --round-order random (default: drawn and recorded)").argParser(
      parseNonNegativeInt,
    ),
  testMetrics: () =>
    new Option(
      "--test-metrics <list>",
      `the metrics a comparison of the variants tests, the others shown with their estimate and interval: of ${ALL_METRICS.join(", ")}, or all (default: ${PRIMARY_METRICS.join(",")})`,
    ).argParser(parseTestedMetrics),
  target: () =>
    new Option(
      "--target <pct>",
      `with --repetitions auto: a block also stops at a look once every undecided tested metric would show a change of this % at 80% power (default: ${DEFAULT_TARGET_PCT})`,
    ).argParser(parsePositiveNumber),
  proxyLifetime: () =>
    new Option(
      "--proxy-lifetime <when>",
      "start each proxy anew every round, with its warm-up, so that the rounds sample its processes; block: one process for every round (faster, but what differs between two processes then reads as a change) (default: round)",
    ).choices(["round", "block"]),
  budget: () =>
    new Option(
      "--budget <minutes>",
      "with --repetitions auto: more rounds, at looks planned before the run, while a metric is undecided, within this many minutes",
    ).argParser(parsePositiveNumber),
  noiseLimit: () =>
    new Option(
      "--noise-limit <cores>",
      "other processes' CPU plus steal on the pinned cores above which a repetition is noisy and measured again (default: 0.05)",
    ).argParser(parseNonNegativeNumber),
  retries: () =>
    new Option(
      "--retries <n>",
      "times a noisy repetition, or one that dropped iterations, is measured again (default: 2)",
    ).argParser(parseNonNegativeInt),
  shard: () =>
    new Option(
      "--shard <i/n>",
      "run the i-th of n parts of the matrix, split by cell (every variant of a cell in the same part), e.g. 2/3",
    ).argParser(parseShardFlag),
  tls: () =>
    new Option(
      "--tls",
      "also measure every scenario over TLS (HTTP/1.1 as https, gRPC as grpcs) on the client side of the proxies that declare it: their own rows, certificates made for the run",
    ),
  maxP99: () =>
    new Option("--max-p99 <ms>", "the p99 latency a held rate stays under (default: 50)").argParser(
      parsePositiveNumber,
    ),
  dryRun: () => new Option("--dry-run", "print the plan and its estimated wall time, run nothing"),
  out: () => new Option("-o, --out <dir>", "results directory (default: results/<YYYYMMDD-HHMMSS>)"),
  resume: () =>
    new Option("--resume <dir>", "finish the matrix of an interrupted run, with its recorded settings"),
  json: () => new Option("--json", "print JSON"),
} satisfies Record<FlagName, () => Option>;

/** The flags spelled in `FLAGS`: the measuring commands', and those other commands share. */
type FlagName = keyof MeasureFlags | "json";

/** A flag of `FLAGS`, with this command's own help text where it differs (e.g. its defaults), or an option built from one. */
export type FlagChoice = FlagName | [FlagName, string] | Option;

/** Adds these flags, each from `FLAGS`, to the command, in this order. */
export function addFlags(command: Command, flags: readonly FlagChoice[]): Command {
  for (const flag of flags) {
    if (flag instanceof Option) {
      command.addOption(flag);
      continue;
    }
    command.addOption(typeof flag === "string" ? option(flag) : option(...flag));
  }
  return command;
}

/** One flag of `FLAGS`, with this command's help text if given. */
export function option(name: FlagName, description?: string): Option {
  const built = FLAGS[name]();
  if (description !== undefined) built.description = description;
  return built;
}

/** `-r` where `auto` is a value too (the wall-clock matrix). */
export function repetitionsOrAuto(description: string): Option {
  return option("repetitions", description).argParser(parseRepetitions);
}

/** The rounds asked for: `-r auto`, with --budget and --target. */
function roundsRequest(flags: MeasureFlags): Pick<RunRequest, "autoRounds" | "budgetMinutes" | "targetPct"> {
  return withoutUndefined({
    autoRounds: flags.repetitions === "auto" ? true : undefined,
    budgetMinutes: flags.budget,
    targetPct: flags.target,
  });
}

/**
 * `proxybench run`'s request: a new variant run that names no repetitions takes `-r auto` within
 * bench.yml's budget, so that it can reach a verdict.
 */
export function runRequest(flags: MeasureFlags): RunRequest {
  const request = toRequest(flags);
  const byDefault = flags.repetitions === undefined && !!flags.variant?.length && flags.resume === undefined;
  if (!byDefault) return request;
  return { ...request, autoRounds: true, budgetMinutes: flags.budget ?? DEFAULT_BUDGET_MINUTES };
}

/** The flags as a RunRequest (absent where not given, so that --resume can tell). */
export function toRequest(flags: MeasureFlags): RunRequest {
  return withoutUndefined({
    proxies: flags.proxies,
    scenarios: flags.scenarios,
    engine: flags.engine,
    repetitions: flags.repetitions === "auto" ? undefined : flags.repetitions,
    ...roundsRequest(flags),
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
    proxyLifetime: flags.proxyLifetime,
    testedMetrics: flags.testMetrics,
    shard: flags.shard,
    tls: flags.tls,
  });
}

/** `--variant` with `--variant-proxies-dir`/`--variant-scenarios-dir` applied to each; none: undefined. */
function variantsOf(flags: MeasureFlags): RunRequest["variants"] {
  const variants = withLayout(
    (flags.variant ?? []).map((v) => parseVariant(v)),
    {
      proxiesDir: flags.variantProxiesDir,
      scenariosDir: flags.variantScenariosDir,
    },
  );
  return variants.length > 0 ? variants : undefined;
}
