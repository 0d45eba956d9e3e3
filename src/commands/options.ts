import { InvalidArgumentError, Option, type Command } from "commander";
import { Engine } from "../results/schema.js";
import { parseRuntimeKind } from "../runner/runtime-factory.js";
import type { RunRequest } from "../runner/settings.js";
import { parseShard, type Shard } from "../runner/shard.js";
import { isImageTag, parseVariant, withLayout } from "../runner/variants.js";
import { DEFAULT_PROXIES, DEFAULT_REPETITIONS, DEFAULT_SCENARIOS } from "../runner/plan.js";
import { DEFAULT_MAX_P99_MS } from "../measures/max-rate/search.js";
import {
  ALL_METRICS,
  DEFAULT_ALPHA,
  DEFAULT_BUDGET_MINUTES,
  DEFAULT_TARGET_PCT,
  DEFAULT_THRESHOLD_PCT,
  PRIMARY_METRICS,
  type CompareMetric,
} from "../stats/tested-metrics.js";
import { DEFAULT_FLOOR_PCT } from "../measures/counted/compare.js";
import { optionalNumberInput, PERCENTAGE, PROBABILITY } from "../util/inputs.js";
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

/**
 * A parser of a number flag: digits only when `whole`, a trailing `s` allowed when `seconds`, in
 * range when `ok`; `what` names it in errors.
 */
function numberFlag(what: string, ok: (n: number) => boolean, { whole = false, seconds = false } = {}) {
  return (value: string): number => {
    const text = value.trim();
    const n = Number(seconds ? text.replace(/s$/, "") : text);
    if (!(whole ? /^\d+$/.test(text) : text !== "" && Number.isFinite(n)) || !ok(n)) {
      throw new InvalidArgumentError(`'${value}' is not ${what}`);
    }
    return n;
  };
}

export const parsePositiveInt = numberFlag("a positive whole number", (n) => n >= 1, { whole: true });
export const parseNonNegativeInt = numberFlag("a whole number >= 0", () => true, { whole: true });
const parsePositiveNumber = numberFlag("a number above 0", (n) => n > 0);
const parseNonNegativeNumber = numberFlag("a number >= 0", (n) => n >= 0);
const parseSeconds = numberFlag("a number of seconds above 0", (n) => n > 0, { seconds: true });
const parseSecondsOrZero = numberFlag("a number of seconds", (n) => n >= 0, { seconds: true });

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function parseShardFlag(text: string): Shard {
  try {
    return parseShard(text);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message.replace(/^--shard: /, ""));
  }
}

/**
 * An option of `FLAGS` that carries the type of its value: the flags' types are read off the table
 * (`FlagValues`), from each flag's parser or choices, never restated. The brand exists only for
 * the type checker.
 */
declare const VALUE: unique symbol;
type Flag<T> = Option & { readonly [VALUE]: T };

/**
 * A flag (its spelling, e.g. `-p, --proxies <names>`, and what it does) whose value its parser
 * returns; `shown` is the default --help shows (`withDefault`).
 */
function parsed<T>(
  flags: string,
  description: string,
  parser: (value: string, previous: T) => T,
  shown?: string,
): Flag<T> {
  return withDefault(new Option(flags, description), shown).argParser(parser) as Flag<T>;
}

/** A flag whose value is one of these words. */
function oneOf<const C extends readonly string[]>(
  flags: string,
  description: string,
  choices: C,
  shown?: string,
) {
  return withDefault(new Option(flags, description), shown).choices(choices) as Flag<C[number]>;
}

/** A flag whose value is its text as given; `shown`: its default in --help (`withDefault`). */
export function textFlag(flags: string, description: string, shown?: string): Flag<string> {
  return withDefault(new Option(flags, description), shown) as Flag<string>;
}

/** A flag without a value (no `<value>` in its spelling): true when present. */
function toggle(flags: string, description: string): Flag<boolean> {
  return new Option(flags, description) as Flag<boolean>;
}

/** What --help shows as a flag's default when it has no value commander fills in: `(default: TEXT)`. */
function withDefault<O extends Option>(option: O, text: string | undefined): O {
  option.defaultValueDescription = text;
  return option;
}

/**
 * How --help shows every flag: its description, then its choices and its default in one form,
 * `(choices: a, b; default: x)`. The default is commander's default value or, where a flag has
 * none (its default is decided later, e.g. "the study's"), its defaultValueDescription.
 */
export function describeOption(option: Option): string {
  const extra: string[] = [];
  if (option.argChoices) extra.push(`choices: ${option.argChoices.join(", ")}`);
  const value = option.defaultValue as unknown;
  const shown =
    option.defaultValueDescription ??
    (typeof value === "string" || typeof value === "number" ? String(value) : undefined);
  if (shown !== undefined) extra.push(`default: ${shown}`);
  return extra.length > 0 ? `${option.description} (${extra.join("; ")})` : option.description;
}

/** Docker's rule for a tag; an empty --image-tag is none (a workflow passes an unset input). */
function parseImageTag(value: string): string {
  if (value !== "" && !isImageTag(value)) {
    throw new InvalidArgumentError(
      `'${value}' is not an image tag (letters, digits, '_', '.', '-'; at most 128)`,
    );
  }
  return value;
}

/**
 * Every flag of the measuring commands, and those other commands share, spelled and described
 * once: a flag means the same on every command that has it (test/unit/commands/options.test.ts
 * walks every --help, and lists the few that do something of their own somewhere, `ownFlag`).
 * Each command adds the ones it reads (`addFlags`), so a flag that means nothing to it is an
 * unknown option there; a command gives its own default where it differs (`[name, default]`).
 */
const FLAGS = {
  proxies: () =>
    parsed("-p, --proxies <names>", "comma-separated proxies", parseCsv, DEFAULT_PROXIES.join(",")),
  scenarios: () =>
    parsed("-s, --scenarios <names>", "comma-separated scenarios", parseCsv, DEFAULT_SCENARIOS.join(",")),
  engine: () =>
    oneOf(
      "-e, --engine <engine>",
      "load generator for every scenario",
      Engine.options,
      "each scenario's own",
    ),
  repetitions: () =>
    parsed<number | "auto">(
      "-r, --repetitions <n>",
      "repetitions per cell",
      parsePositiveInt,
      `${DEFAULT_REPETITIONS}`,
    ),
  duration: () =>
    parsed("-d, --duration <seconds>", "length of each repetition", parseSeconds, "the scenario's"),
  warmup: () =>
    parsed(
      "-w, --warmup <seconds>",
      "length of the discarded warm-up, 0 for none",
      parseSecondsOrZero,
      "the scenario's",
    ),
  load: () => parsed("-l, --load <labels>", "comma-separated load levels", parseCsv, "each scenario's first"),
  cpus: () =>
    textFlag(
      "--cpus <layout>",
      "cores per role, e.g. loadgen=0,proxy=1,upstream=1; ranges 2-3, lists 0+2",
      "from this machine's core count",
    ),
  runtime: () => textFlag("--runtime <runtime>", "native or docker", "native"),
  imageTag: () =>
    parsed(
      "--image-tag <tag>",
      "image tag of the proxies under --runtime docker",
      parseImageTag,
      "$PROXYBENCH_IMAGE_TAG, else local",
    ),
  proxiesDir: () =>
    parsed(
      "--proxies-dir <dir>",
      "folder of <name>/proxy.yml beside the built-in proxies; one of the same name replaces the built-in (repeatable)",
      collect,
    ),
  scenariosDir: () =>
    parsed(
      "--scenarios-dir <dir>",
      "folder of <name>/scenario.yml beside the built-in scenarios; one of the same name replaces the built-in (repeatable)",
      collect,
    ),
  variant: () =>
    parsed(
      "--variant <name=dir>",
      "measure this variant's proxies/ and scenarios/ side by side with the others, in rounds (repeatable; e.g. base=../main head=.)",
      collect,
    ),
  variantProxiesDir: () =>
    textFlag(
      "--variant-proxies-dir <dir>",
      "where each variant's DIR holds its proxies, e.g. bench/proxies",
      "proxies",
    ),
  variantScenariosDir: () =>
    textFlag(
      "--variant-scenarios-dir <dir>",
      "where each variant's DIR holds its scenarios, e.g. bench/scenarios",
      "scenarios",
    ),
  roundOrder: () =>
    oneOf("--round-order <order>", "order of the cells in each round", ["abba", "random"], "random, seeded"),
  seed: () => parsed("--seed <n>", "seed of --round-order random", parseNonNegativeInt, "drawn and recorded"),
  testMetrics: () =>
    parsed(
      "--test-metrics <list>",
      `the metrics a comparison of the variants tests, the others shown with their estimate and interval: of ${ALL_METRICS.join(", ")}, or all`,
      parseTestedMetrics,
      PRIMARY_METRICS.join(","),
    ),
  target: () =>
    parsed(
      "--target <pct>",
      "with --repetitions auto: a block also stops at a look once every undecided tested metric would show a change of this % at 80% power",
      parsePositiveNumber,
      String(DEFAULT_TARGET_PCT),
    ),
  proxyLifetime: () =>
    oneOf(
      "--proxy-lifetime <when>",
      "round: each round starts every proxy anew, with its warm-up, so that the rounds sample its processes; block: one process for every round (faster, but what differs between two processes then reads as a change)",
      ["round", "block"],
      "round",
    ),
  budget: () =>
    parsed(
      "--budget <minutes>",
      "with --repetitions auto: more rounds, at looks planned before the run, while a metric is undecided, within this many minutes",
      parsePositiveNumber,
    ),
  noiseLimit: () =>
    parsed(
      "--noise-limit <cores>",
      "other processes' CPU on the pinned cores above which a repetition is noisy and measured again; the hypervisor's steal above it leaves that round out of the tests of latency (and of CPU per request where the kernel counts steal as the proxy's)",
      parseNonNegativeNumber,
      "0.05",
    ),
  retries: () =>
    parsed(
      "--retries <n>",
      "times a noisy repetition, or one that dropped iterations, is measured again",
      parseNonNegativeInt,
      "2",
    ),
  shard: () =>
    parsed(
      "--shard <i/n>",
      "run the i-th of n parts of the matrix, split by cell (every variant of a cell in the same part), e.g. 2/3",
      parseShardFlag,
    ),
  tls: () =>
    toggle(
      "--tls",
      "also measure every scenario over TLS (HTTP/1.1 as https, gRPC as grpcs) on the client side of the proxies that declare it: their own rows, certificates made for the run",
    ),
  maxP99: () =>
    parsed(
      "--max-p99 <ms>",
      "the p99 latency a held rate stays under",
      parsePositiveNumber,
      `${DEFAULT_MAX_P99_MS}`,
    ),
  dryRun: () => toggle("--dry-run", "print the plan and its estimated wall time, run nothing"),
  out: () => textFlag("-o, --out <dir>", "results folder", "results/<YYYYMMDD-HHMMSS>"),
  resume: () =>
    textFlag("--resume <dir>", "finish the matrix of an interrupted run, with its recorded settings"),
  study: () => textFlag("--study <name>", "a study of studies/<name>/study.yml (proxybench list shows them)"),
  format: () => textFlag("--format <format>", "output format"),
  outFile: () => textFlag("--out-file <file>", "write to this file instead of stdout"),
  baselineProxy: () =>
    textFlag("--baseline-proxy <name>", "proxy every % change is computed against", "direct, else the first"),
  threshold: () =>
    textFlag(
      "--threshold <pct>",
      "smallest % change in wall-clock time that counts",
      `${DEFAULT_THRESHOLD_PCT}`,
    ),
  alpha: () =>
    textFlag(
      "--alpha <p>",
      "chance of any false verdict in the whole wall-clock comparison, split over its tests",
      `${DEFAULT_ALPHA}`,
    ),
  floor: () =>
    textFlag(
      "--floor <pct>",
      "smallest % change in counted work (proxybench count) that counts",
      `${DEFAULT_FLOOR_PCT}`,
    ),
  failOnRegression: () => toggle("--fail-on-regression", "exit 1 when any metric regressed"),
} satisfies Record<string, () => Flag<unknown>>;

/** The judging flags read and checked (errors name the flag), their defaults those `FLAGS` shows. */
export function judging(flags: Pick<FlagValues, "threshold" | "alpha" | "floor">) {
  return {
    thresholdPct: optionalNumberInput("--threshold", flags.threshold, DEFAULT_THRESHOLD_PCT, PERCENTAGE),
    alpha: optionalNumberInput("--alpha", flags.alpha, DEFAULT_ALPHA, PROBABILITY),
    floorPct: optionalNumberInput("--floor", flags.floor, DEFAULT_FLOOR_PCT, PERCENTAGE),
  };
}

/** The flags spelled in `FLAGS`: the measuring commands', and those other commands share. */
type FlagName = keyof typeof FLAGS;

/** Where the proxies run and the folders of proxies read: the flags `run`, `count` and `study` share. */
export const PLACE_FLAGS: readonly FlagName[] = ["cpus", "runtime", "imageTag", "proxiesDir"];

/** Where a matrix runs and the manifests it reads, variants beside: the flags `run` and `count` share. */
export const MATRIX_FLAGS: readonly FlagName[] = [
  ...PLACE_FLAGS,
  "scenariosDir",
  "variant",
  "variantProxiesDir",
  "variantScenariosDir",
];

/** Each flag's value as commander gives it (absent when not given and without a default). */
export type FlagValues = { [K in FlagName]?: ReturnType<(typeof FLAGS)[K]>[typeof VALUE] };

/** A flag of `FLAGS`, with this command's own default where it differs, or an option built from one. */
export type FlagChoice = FlagName | [FlagName, string] | Option;

/** Adds these flags, each from `FLAGS`, to the command, in this order. */
export function addFlags(command: Command, flags: readonly FlagChoice[]): Command {
  for (const flag of flags) {
    if (flag instanceof Option) command.addOption(flag);
    else command.addOption(typeof flag === "string" ? option(flag) : option(...flag));
  }
  return command;
}

/** One flag of `FLAGS`, with this command's default if given (what --help shows; null: none). */
export function option(name: FlagName, defaultText?: string | null): Option {
  const built = FLAGS[name]();
  return defaultText === undefined ? built : withDefault(built, defaultText ?? undefined);
}

/**
 * A flag of `FLAGS` (its spelling and parser) that does something of its own on this command,
 * said by `description`; the help test lists each such flag with the reason.
 */
export function ownFlag(name: FlagName, description: string, defaultText: string | null = null): Option {
  const built = option(name, defaultText);
  built.description = description;
  return built;
}

/** `--format` of the commands that print text for people or JSON for programs (list, doctor). */
export function textOrJson(): Option {
  return option("format").choices(["text", "json"]).default("text");
}

/**
 * `--out FILE`, report's and compare's old spelling of --out-file (--out is the measuring
 * commands' results folder): hidden, kept because shipped workflows and actions pass it.
 */
export function outAlias(): Option {
  return new Option("--out <file>", "old spelling of --out-file").hideHelp().conflicts("outFile");
}

/** The flags of report and compare with --out-file, or its old spelling --out, as `out`. */
export function withOutFile<T extends { out?: string; outFile?: string }>({ outFile, ...rest }: T) {
  return { ...rest, ...(outFile !== undefined ? { out: outFile } : {}) };
}

/** `-r` where `auto` is a value too (the wall-clock matrix). */
export function repetitionsOrAuto(defaultText: string): Option {
  return ownFlag(
    "repetitions",
    "repetitions per cell, or auto with --variant: the rounds a verdict needs",
    defaultText,
  ).argParser((text): number | "auto" => (text === "auto" ? "auto" : parsePositiveInt(text)));
}

/**
 * `proxybench run`'s request: a new variant run that names no repetitions takes `-r auto` within
 * bench.yml's budget, so that it can reach a verdict.
 */
export function runRequest(flags: FlagValues): RunRequest {
  const request = toRequest(flags);
  const byDefault = flags.repetitions === undefined && !!flags.variant?.length && flags.resume === undefined;
  if (!byDefault) return request;
  return { ...request, autoRounds: true, budgetMinutes: flags.budget ?? DEFAULT_BUDGET_MINUTES };
}

/** The flags as a RunRequest (absent where not given, so that --resume can tell). */
export function toRequest(flags: FlagValues): RunRequest {
  return withoutUndefined({
    proxies: flags.proxies,
    scenarios: flags.scenarios,
    engine: flags.engine,
    repetitions: flags.repetitions === "auto" ? undefined : flags.repetitions,
    // The rounds asked for: `-r auto`, with --budget and --target.
    autoRounds: flags.repetitions === "auto" ? true : undefined,
    budgetMinutes: flags.budget,
    targetPct: flags.target,
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
function variantsOf(flags: FlagValues): RunRequest["variants"] {
  const variants = withLayout(
    (flags.variant ?? []).map((v) => parseVariant(v)),
    {
      proxiesDir: flags.variantProxiesDir,
      scenariosDir: flags.variantScenariosDir,
    },
  );
  return variants.length > 0 ? variants : undefined;
}
