import path from "node:path";
import { getEngine } from "../../engines/index.js";
import { Interrupted } from "../../runner/cell.js";
import type { ActiveCell, CellContext } from "../../runner/context.js";
import { formatWallTime } from "../../render/format.js";
import type { MeasurementStep } from "../../runner/lifecycle.js";
import { NativeRuntime } from "../../runner/native-runtime.js";
import { AtomicJsonFile } from "../../runner/results-file.js";
import {
  skippedName,
  unspokenText,
  UnspokenProtocol,
  type Block,
  type PlannedCell,
} from "../../runner/plan.js";
import { nativeBinaries, refuseUsedOut, type PreflightResult } from "../../runner/preflight.js";
import { coreCount, defaultOutDir, resolveSettings, type RunRequest } from "../../runner/settings.js";
import {
  type BlockRun,
  type MeasurementKind,
  type Out,
  type ReadyMeasurement,
  runMeasurement,
  dryRunMeasurement,
} from "../../runner/measurement.js";
import { planRun } from "../../runner/variants.js";
import { UserError } from "../../util/errors.js";
import {
  DEFAULT_MAX_P99_MS,
  DEFAULT_MAX_RATE_OPTIONS,
  formatMaxRate,
  rateSteps,
  searchMaxRate,
  type MaxRateOptions,
  type MaxRateResult,
} from "./search.js";

/**
 * `proxybench max-rate`: the searches planned as a run is (runner/variants.ts `planRun`: a block
 * per scenario, a cell per proxy, natively with the k6 engine), each block one lifecycle of the
 * runner (runner/lifecycle.ts) whose step searches each cell in turn: its proxy started (pinned
 * per the CPU layout), the maximum sustainable rate searched with short k6 constant-arrival-rate
 * steps, the proxy stopped. Writes OUT/<proxy>-<scenario>/max-rate.json and every step's raw k6
 * output to raw/ beside it; the logs go to OUT/logs as a run's do.
 */

/** What `proxybench max-rate` was asked: the flags it shares with a run (--duration and --warmup per step), and --max-p99. */
export type MaxRateRequest = Pick<
  RunRequest,
  "proxies" | "scenarios" | "cpus" | "out" | "durationS" | "warmupS" | "proxiesDirs" | "scenariosDirs"
> & {
  /** `--max-p99` in ms (default 50). */
  maxP99Ms?: number;
  /** The search's own settings (tests). */
  search?: Partial<MaxRateOptions>;
};

interface ProxyMaxRateOutcome {
  proxy: string;
  proxyVersion?: string;
  scenario: string;
  maxP99Ms: number;
  stepDurationS: number;
  result: MaxRateResult;
  file: string;
}

const DEFAULT_STEP_DURATION_S = 5;

/**
 * The searches as the runner plans a run (a block's load: one step's duration and warm-up), each
 * proxy refused before anything starts when it cannot run natively here; the request kept for
 * the search's bound and settings.
 */
async function planSearches(req: MaxRateRequest, cores: number) {
  const { settings } = resolveSettings(
    {
      ...req,
      engine: "k6",
      repetitions: 1,
      roundOrder: "abba", // one search per cell, in the plan's order: nothing is paired
      runtime: "native",
      durationS: req.durationS ?? DEFAULT_STEP_DURATION_S,
      warmupS: req.warmupS ?? 0,
    },
    cores,
  );
  const plan = await planRun(settings).catch((err: unknown) => {
    if (!(err instanceof UnspokenProtocol)) throw err;
    throw new UserError(
      `max-rate: ${unspokenText(err.scenario, err.engine, err.protocol)}; the search drives k6 only`,
    );
  });
  const [skipped] = plan.skipped;
  if (skipped) {
    throw new UserError(
      skipped.scenario === undefined
        ? `max-rate: ${skipped.proxy} is image only; it cannot run natively here`
        : `max-rate: ${skippedName(skipped)}: ${skipped.reason}`,
    );
  }
  const { missing } = await nativeBinaries(plan);
  if (missing.length > 0) throw new UserError(`max-rate: ${missing.join("; ")}`);
  const dir = path.resolve(req.out ?? defaultOutDir(new Date()));
  const files = plan.blocks.flatMap((b) => b.cells.map((c) => searchFile(c.proxy.manifest.name, b)));
  await refuseUsedOut(dir, files, "choose another --out");
  return { settings, plan, dir, req };
}

const OUTCOME_FILE = "max-rate.json";

/** Where a search's outcome goes, in the run's folder: `<proxy>-<scenario>/max-rate.json`. */
function searchFile(proxy: string, block: Block): string {
  return path.join(`${proxy}-${block.scenario.manifest.name}`, OUTCOME_FILE);
}

/** What every search of a `proxybench max-rate` shares. */
interface Searches {
  req: MaxRateRequest;
  ctx: CellContext;
  stdout: Out;
  stderr: Out;
  outcomes: ProxyMaxRateOutcome[];
}

/** Where a max-rate search prints, and the cores it lays out (tests). */
interface MaxRateDeps {
  stdout?: Out;
  stderr?: Out;
  cores?: number;
}

/**
 * Every proxy x scenario asked for, one search each, one after the other (results in
 * OUT/<proxy>-<scenario>/max-rate.json). Prints each step as it is measured and each outcome.
 */
export function findMaxRates(req: MaxRateRequest, deps: MaxRateDeps = {}): Promise<ProxyMaxRateOutcome[]> {
  return runMeasurement(maxRate(deps), req);
}

type PlannedSearches = Awaited<ReturnType<typeof planSearches>>;
type ReadySearches = ReadyMeasurement & Pick<Searches, "outcomes">;

/** The max-rate measurement: a block's step searches each cell in turn; no results document. */
function maxRate(
  deps: MaxRateDeps,
): MeasurementKind<MaxRateRequest, PlannedSearches, ReadySearches, ProxyMaxRateOutcome[]> {
  return {
    plan: (req) => planSearches(req, deps.cores ?? coreCount()),
    preflight: ({ settings }) => ({ settings, getEngine }),
    describe: describeSearches,
    prepare: (planned, { binaries }) => prepareSearches(planned, binaries, deps),
    finish: ({ outcomes }) => outcomes,
  };
}

/** The searches' outcomes gathered, each cell run on the proxies' binaries found. */
function prepareSearches(
  { settings, dir, req }: PlannedSearches,
  binaries: PreflightResult["binaries"],
  deps: MaxRateDeps,
): ReadySearches {
  const runtime = new NativeRuntime();
  const stderr = deps.stderr ?? process.stderr;
  const outcomes: ProxyMaxRateOutcome[] = [];
  const ctx = { settings, runtime, upstreamRuntime: runtime, dir, binaries, results: { environment: {} } };
  const searches = { req, stdout: deps.stdout ?? process.stdout, stderr, outcomes };
  return {
    outcomes,
    session: {
      interrupted: () =>
        `interrupted: ${outcomes.length} search(es) finished, each in its max-rate.json in ${dir}`,
      say: (line) => stderr.write(`${line}\n`),
    },
    blockRun: (block, session) => searchBlock(block, { ...searches, ctx: { ...ctx, ...session } }),
  };
}

/** A block of the runner's lifecycle whose step is the search: each cell started, searched and stopped in its slot. */
function searchBlock(block: Block, s: Searches): BlockRun<PlannedCell> {
  const step: MeasurementStep<PlannedCell> = {
    proxies: { block, ctx: s.ctx, per: "slot" },
    startCell: (planned) => Promise.resolve(planned),
    skips: () => false,
    measure: async (_planned, _round, _upstreams, proxy) => {
      const a = proxy!; // per slot: the lifecycle started it for this slot
      if (a.problems.length > 0) throw new UserError(a.problems.map((p) => p.reason).join("; "));
      s.outcomes.push(await searchCell(a, block, s));
    },
  };
  return { lifecycle: { cells: block.cells, logStem: block.key, ctx: s.ctx }, step };
}

/** The search on one started cell, its outcome written to OUT/<proxy>-<scenario>/max-rate.json and printed. */
async function searchCell(a: ActiveCell, block: Block, s: Searches): Promise<ProxyMaxRateOutcome> {
  const proxy = a.planned.proxy.manifest.name;
  const scenario = block.scenario.manifest.name;
  s.stderr.write(`find-max-rate: ${proxy} on ${scenario}\n`);
  const file = path.join(s.ctx.dir, searchFile(proxy, block));
  const dir = path.dirname(file);
  const maxP99Ms = s.req.maxP99Ms ?? DEFAULT_MAX_P99_MS;
  const target = {
    scenario: block.scenario.manifest,
    scenarioDir: block.scenario.dir,
    baseUrl: a.baseUrl,
    cpus: s.ctx.settings.cpus.loadgen,
    outDir: path.join(dir, "raw"),
    signal: s.ctx.signal,
  };
  const { durationS, warmupS } = block.load;
  const result = await searchMaxRate(
    rateSteps(getEngine("k6"), target, { durationS, warmupS, maxP99Ms }),
    s.req.search,
    (st) =>
      s.stderr.write(
        `  ${st.phase} ${st.rate}/s: ${st.ok ? "held" : "did not hold"}${st.p99Ms !== undefined ? `, p99 ${st.p99Ms.toFixed(1)} ms` : ""}\n`,
      ),
  );
  // A search that a signal stopped has no outcome.
  if (s.ctx.isInterrupted()) throw new Interrupted();
  const version = s.ctx.binaries.get(proxy)?.version;
  const outcome: ProxyMaxRateOutcome = {
    proxy,
    ...(version === undefined ? {} : { proxyVersion: version }),
    scenario,
    maxP99Ms,
    stepDurationS: block.load.durationS,
    result,
    file,
  };
  await new AtomicJsonFile<ProxyMaxRateOutcome>(dir, OUTCOME_FILE, (o) => o).save(outcome);
  s.stdout.write(`${formatProxyMaxRate(outcome)}\n\n`);
  return outcome;
}

/** The outcome as terminal text: the rate, the bound, then every step. */
function formatProxyMaxRate(o: ProxyMaxRateOutcome): string {
  return [
    `${o.proxy}${o.proxyVersion ? ` ${o.proxyVersion}` : ""} on ${o.scenario}: p99 <= ${o.maxP99Ms} ms, no error, ` +
      `load generator not the limit, ${o.stepDurationS} s per step`,
    formatMaxRate(o.result, "iterations/s"),
    `details: ${o.file}`,
  ].join("\n");
}

/** `proxybench max-rate --dry-run`: the searches, refused as the search would, and how long they take at most. */
export function dryRunMaxRate(req: MaxRateRequest, out: Out = process.stdout): Promise<void> {
  return dryRunMeasurement(maxRate({}), req, out);
}

/** The searches planned and how long they take at most. */
function describeSearches({ settings, plan }: PlannedSearches): string {
  const searches = plan.blocks.reduce((n, b) => n + b.cells.length, 0);
  const steps = DEFAULT_MAX_RATE_OPTIONS.maxSteps;
  const step = (settings.durationS ?? 0) + (settings.warmupS ?? 0);
  const most = searches * steps * step;
  return (
    `find-max-rate: ${searches} search(es) (${settings.proxies.join(", ")} x ${settings.scenarios.join(", ")}), ` +
    `each at most ${steps} steps of ${step}s\n` +
    `estimated wall time: at most ${formatWallTime(most)} (${formatWallTime(2 * most)} if every step is measured again)\n`
  );
}
