import { writeFile } from "node:fs/promises";
import path from "node:path";
import { getEngine } from "../engines/index.js";
import type { EngineAdapter } from "../engines/types.js";
import {
  loadManifests,
  type LoadedProxy,
  type LoadedScenario,
  type ManifestDirs,
} from "../manifests/load.js";
import type { CpuLayout } from "../results/schema.js";
import { stopCell, type ActiveCell, type CellContext } from "../runner/cell.js";
import { defaultCpuLayout, parseCpuLayout } from "../runner/cpus.js";
import { runBlockLifecycle, type MeasurementStep } from "../runner/lifecycle.js";
import { NativeRuntime } from "../runner/native-runtime.js";
import { selectNames, type Block, type PlannedCell } from "../runner/plan.js";
import { nativeAvailability } from "../runner/proxy-binary.js";
import { coreCount, defaultOutDir } from "../runner/settings.js";
import { startCell } from "../runner/start-cell.js";
import { ensureUpstream } from "../runner/upstream.js";
import { UserError } from "../util/errors.js";
import {
  DEFAULT_MAX_P99_MS,
  DEFAULT_MAX_RATE_OPTIONS,
  findMaxRate,
  formatMaxRate,
  rateStepLoad,
  type MaxRateOptions,
  type MaxRateResult,
  type MaxRateStep,
} from "./max-rate.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";

/**
 * `proxybench max-rate`: starts the upstream and one proxy (natively, pinned per the
 * CPU layout), then searches the proxy's maximum sustainable rate on a scenario with short
 * k6 constant-arrival-rate steps. Writes `max-rate.json` and every step's raw k6 output to
 * `outDir`.
 */

export interface ProxyMaxRateRequest {
  proxy: string;
  scenario: string;
  cpus: CpuLayout;
  outDir: string;
  /** Seconds per step (default 5) and per warm-up before each step (default 0). */
  stepDurationS?: number;
  warmupS?: number;
  /** The p99 bound of a step that holds (default 50 ms). */
  maxP99Ms?: number;
  search?: Partial<MaxRateOptions>;
  dirs?: ManifestDirs;
  /** The k6 engine (tests may pass their own). */
  engine?: EngineAdapter;
  onStep?: (step: MaxRateStep) => void;
  signal?: AbortSignal;
}

export interface ProxyMaxRateOutcome {
  proxy: string;
  proxyVersion?: string;
  scenario: string;
  maxP99Ms: number;
  stepDurationS: number;
  result: MaxRateResult;
  file: string;
}

export const DEFAULT_STEP_DURATION_S = 5;

export async function findProxyMaxRate(req: ProxyMaxRateRequest): Promise<ProxyMaxRateOutcome> {
  const { proxy, scenario, availability } = await resolveSearch(req);
  const engine = req.engine ?? getEngine("k6");
  await engine.locate();
  const outDir = path.resolve(req.outDir);
  const stepDurationS = req.stepDurationS ?? DEFAULT_STEP_DURATION_S;
  const maxP99Ms = req.maxP99Ms ?? DEFAULT_MAX_P99_MS;
  const block = searchedBlock(req, proxy, scenario, stepDurationS);
  const ctx = searchContext(req, outDir, availability);
  let result: MaxRateResult | undefined;
  const search = searchStep(block, ctx, async (baseUrl) => {
    result = await findMaxRate({
      engine,
      scenario: scenario.manifest,
      scenarioDir: scenario.dir,
      baseUrl,
      cpus: req.cpus.loadgen,
      outDir: path.join(outDir, "raw"),
      stepDurationS,
      ...pickDefined(req, ["warmupS"]),
      limits: { maxP99Ms },
      ...pickDefined(req, ["search", "onStep", "signal"]),
    });
  });
  await runBlockLifecycle(
    {
      cells: block.cells,
      upstreams: {
        runtime: ctx.upstreamRuntime,
        binary: await ensureUpstream(),
        cpus: req.cpus.upstream,
        dir: outDir,
        logStem: block.key,
        ...pickDefined(req, ["signal"]),
      },
      rounds: { count: 1 },
      save: () => Promise.resolve(),
    },
    search,
  );
  const outcome: ProxyMaxRateOutcome = {
    proxy: req.proxy,
    ...(availability.kind === "found" ? { proxyVersion: availability.version } : {}),
    scenario: req.scenario,
    maxP99Ms,
    stepDurationS,
    result: result!,
    file: path.join(outDir, "max-rate.json"),
  };
  await writeFile(outcome.file, `${JSON.stringify(outcome, null, 2)}\n`);
  return outcome;
}

/** The search as the measurement of a block: its one cell's proxy started (or the cell refused), then searched. */
function searchStep(
  block: Block,
  ctx: CellContext,
  searchAt: (baseUrl: string) => Promise<void>,
): MeasurementStep<ActiveCell> {
  return {
    startCell: async (planned, upstream) => {
      const a = await startCell(planned, block, upstream.started, upstream.logRel, ctx);
      if (a.problems.length > 0) throw new UserError(a.problems.map((p) => p.reason).join("; "));
      return a;
    },
    skips: () => false,
    measure: (a) => searchAt(a.baseUrl),
    stopCell,
  };
}

/** The search as a block of one cell (the proxy on the scenario), its load the first step's. */
function searchedBlock(
  req: ProxyMaxRateRequest,
  proxy: LoadedProxy,
  scenario: LoadedScenario,
  stepDurationS: number,
): Block {
  const startRate = req.search?.startRate ?? DEFAULT_MAX_RATE_OPTIONS.startRate;
  const load = {
    ...rateStepLoad(startRate, stepDurationS),
    durationS: stepDurationS,
    warmupS: req.warmupS ?? 0,
  };
  const planned: PlannedCell = { id: `${req.scenario}-${req.proxy}`, proxy, scenario, load, engine: "k6" };
  return { key: req.scenario, scenario, load, engine: "k6", cells: [planned] };
}

/** Where the searched proxy starts: natively, pinned to the layout's proxy cores, logs in `outDir`. */
function searchContext(
  req: ProxyMaxRateRequest,
  outDir: string,
  availability: Awaited<ReturnType<typeof resolveSearch>>["availability"],
): CellContext {
  const runtime = new NativeRuntime();
  const binaries = new Map<string, { path: string; version: string }>();
  if (availability.kind === "found") binaries.set(req.proxy, availability);
  return {
    settings: {
      proxies: [req.proxy],
      scenarios: [req.scenario],
      repetitions: 1,
      cpus: req.cpus,
      runtime: "native",
    },
    runtime,
    upstreamRuntime: runtime,
    dir: outDir,
    binaries,
    results: { environment: {} },
    signal: req.signal ?? new AbortController().signal,
    isInterrupted: () => false,
  };
}

/** The proxy and scenario searched, and where the proxy's binary is (the upstream alone for `direct`). */
export async function resolveSearch(req: Pick<ProxyMaxRateRequest, "proxy" | "scenario" | "dirs">) {
  const manifests = await loadManifests(req.dirs ?? {});
  selectNames("--proxies", [req.proxy], manifests.proxies);
  selectNames("--scenarios", [req.scenario], manifests.scenarios);
  const proxy = manifests.proxies.get(req.proxy)!;
  const scenario = manifests.scenarios.get(req.scenario)!;
  const availability = await nativeAvailability(proxy);
  if (availability.kind === "image-only") {
    throw new UserError(`max-rate: ${req.proxy} is image only; it cannot run natively here`);
  }
  if (availability.kind === "missing") {
    throw new UserError(
      `max-rate: ${req.proxy}: '${availability.binary}' not found (fix: ${availability.fix})`,
    );
  }
  return { proxy, scenario, availability };
}

/** The outcome as terminal text: the rate, the bound, then every step. */
export function formatProxyMaxRate(o: ProxyMaxRateOutcome): string {
  const unit = "iterations/s";
  return [
    `${o.proxy}${o.proxyVersion ? ` ${o.proxyVersion}` : ""} on ${o.scenario}: p99 <= ${o.maxP99Ms} ms, no error, ` +
      `load generator not the limit, ${o.stepDurationS} s per step`,
    formatMaxRate(o.result, unit),
    `details: ${o.file}`,
  ].join("\n");
}

/** What `proxybench max-rate` was asked (flags already typed). */
export interface FindMaxRatesRequest {
  proxies: string[];
  scenarios: string[];
  /** The `--cpus` text; default: the runner's layout for this machine's cores. */
  cpus?: string;
  out?: string;
  /** `--duration`: seconds per step; `--warmup`: seconds of warm-up before each step. */
  durationS?: number;
  warmupS?: number;
  /** `--max-p99` in ms (default 50). */
  maxP99Ms?: number;
  proxiesDirs?: string[];
  scenariosDirs?: string[];
}

/**
 * Every proxy x scenario asked for, one search each, one after the other (results in
 * OUT/<proxy>-<scenario>/max-rate.json). Prints each step as it is measured and each outcome.
 */
export async function findMaxRates(
  req: FindMaxRatesRequest,
  deps: {
    stdout?: { write(s: string): unknown };
    stderr?: { write(s: string): unknown };
    cores?: number;
  } = {},
): Promise<ProxyMaxRateOutcome[]> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const cores = deps.cores ?? coreCount();
  const cpus = req.cpus !== undefined ? parseCpuLayout(req.cpus, cores) : defaultCpuLayout(cores).layout;
  const out = path.resolve(req.out ?? defaultOutDir(new Date()));
  const outcomes: ProxyMaxRateOutcome[] = [];
  for (const scenario of req.scenarios) {
    for (const proxy of req.proxies) {
      stderr.write(`find-max-rate: ${proxy} on ${scenario}\n`);
      const outcome = await findProxyMaxRate({
        proxy,
        scenario,
        cpus,
        outDir: path.join(out, `${proxy}-${scenario}`),
        ...withoutUndefined({ stepDurationS: req.durationS, warmupS: req.warmupS, maxP99Ms: req.maxP99Ms }),
        dirs: searchDirs(req),
        onStep: (st) =>
          stderr.write(
            `  ${st.phase} ${st.rate}/s: ${st.ok ? "held" : "did not hold"}${st.p99Ms !== undefined ? `, p99 ${st.p99Ms.toFixed(1)} ms` : ""}\n`,
          ),
      });
      stdout.write(`${formatProxyMaxRate(outcome)}\n\n`);
      outcomes.push(outcome);
    }
  }
  return outcomes;
}

/** The manifest folders a search's --proxies-dir and --scenarios-dir name. */
export function searchDirs(req: Pick<FindMaxRatesRequest, "proxiesDirs" | "scenariosDirs">): ManifestDirs {
  return {
    ...(req.proxiesDirs?.length ? { proxiesDirs: req.proxiesDirs } : {}),
    ...(req.scenariosDirs?.length ? { scenariosDirs: req.scenariosDirs } : {}),
  };
}
