import { mkdir } from "node:fs/promises";
import path from "node:path";
import { SCHEMA_ID } from "../../results/json-schema.js";
import { readResults } from "../../results/io.js";
import { SCHEMA_VERSION, type Results } from "../../results/schema.js";
import { VERSION } from "../../version.js";
import { captureEnvironment } from "../../environment/capture.js";
import { stealRuleOf } from "../../stats/steal.js";
import { wallClockBlock } from "./block.js";
import type { BlockContext, RunDeps } from "./context.js";
import { runCertificates, type TlsFiles } from "../../runner/tls.js";
import { formatCpuLayout } from "../../runner/cpus.js";
import { NativeRuntime } from "../../runner/native-runtime.js";
import { plannedSeconds, skippedName, splitForResume, type Block } from "../../runner/plan.js";
import { Progress } from "./progress.js";
import {
  checkScripts,
  refuseEmptyPlan,
  refuseUsedOut,
  type PreflightResult,
} from "../../runner/preflight.js";
import { renderDryRun } from "./dry-run.js";
import { ResultsFile, savedDocument } from "../../runner/results-file.js";
import {
  type MeasurementKind,
  type ReadyMeasurement,
  runMeasurement,
  type RunSession,
  dryRunMeasurement,
  type Out,
} from "../../runner/measurement.js";
import { openRunLedger } from "../../runner/leftovers.js";
import { createRuntime } from "../../runner/runtime-factory.js";
import {
  coreCount,
  defaultOutDir,
  resolveResumeSettings,
  resumePath,
  resolveSettings,
  runStamp,
  withRoundsPlan,
  type ResolvedSettings,
  type RunRequest,
} from "../../runner/settings.js";
import { ensureUpstream } from "../../runner/upstream.js";
import { shardPlan } from "../../runner/shard.js";
import { comparedVariants, planRun, planVariantRounds } from "../../runner/variants.js";
import { testedSet } from "../../stats/tested-metrics.js";
import { pickDefined } from "../../util/objects.js";

/**
 * `proxybench run`: for each scenario and load level, start the upstream and every proxy
 * (pinned), check each one answers and answers correctly, warm up, then measure repetitions
 * interleaved across proxies, writing results.json after each one.
 */

export interface RunOutcome {
  dir: string;
  results: Results;
  /** 0: every cell ok; 1: some cell is not. */
  exitCode: number;
}

export function runBenchmark(req: RunRequest, deps: RunDeps): Promise<RunOutcome> {
  return runMeasurement(wallClock(deps), req);
}

/** `proxybench run --dry-run`: the run planned and checked as it would be, printed; nothing started. */
export function dryRunBenchmark(req: RunRequest, deps: RunDeps, out: Out = process.stdout): Promise<void> {
  return dryRunMeasurement(wallClock(deps), req, out);
}

/** The wall-clock measurement: a block's step is the engine's repetitions (block.ts). */
function wallClock(deps: RunDeps): MeasurementKind<RunRequest, ResolvedRun, ReadyRun, RunOutcome> {
  return {
    plan: (req) => resolveRun(req, deps),
    describe: async (run) => {
      await checkScripts(run.plan);
      return renderDryRun(run.plan, run.resolved.settings, formatCpuLayout(run.resolved.settings.cpus));
    },
    preflight: (run) => ({ settings: run.resolved.settings, getEngine: (e) => deps.engines.getEngine(e) }),
    prepare: (run, found) => prepareRun(run, found, deps),
    finish: ({ results, file }) => finishRun(results, file, deps),
  };
}

/** A run ready to measure: its results document and file. */
type ReadyRun = Awaited<ReturnType<typeof prepareRun>>;

/**
 * Everything needed is here (else exit 1 before anything is created): engines, proxy binaries,
 * the upstream; then the results folder, the environment and the first results.json.
 */
async function prepareRun(run: ResolvedRun, found: PreflightResult, deps: RunDeps) {
  const stderr = deps.stderr ?? process.stderr;
  const { settings } = run.resolved;
  const { tools, binaries } = found;
  const upstreamBinary = await ensureUpstream();
  const runtime = deps.runtime ?? createRuntime(settings.runtime);
  const upstreamRuntime = runtime.kind === "native" ? runtime : new NativeRuntime();

  const say = (line: string) => stderr.write(`${line}\n`);
  const ledger = await openRunLedger(run.dir, settings.cpus, say);
  const tls = await makeResultsDir(run);
  const environment = await captureEnvironment({
    tools,
    proxies: Object.fromEntries([...binaries].map(([name, b]) => [name, b.version])),
  });
  const results = startingResults(run, environment);
  const file = new ResultsFile(run.dir);
  announce(run, say);
  const progress = new Progress(stderr, remainingSeconds(run));
  const base = {
    deps,
    settings,
    runtime,
    upstreamRuntime,
    upstreamBinary,
    dir: run.dir,
    results,
    binaries,
    progress,
  };
  return {
    results,
    file,
    session: {
      documents: [savedDocument(file, results)],
      handleSignals: deps.handleSignals,
      close: () => {
        progress.finish();
        ledger.close();
      },
      interrupted: () => keepFinishedCells(results, file, run.dir),
      say,
    },
    settle: () => settleResults(run, results),
    blockRun: blockRunner(run, (session) => ({ ...base, ...session, ...(tls === undefined ? {} : { tls }) })),
  };
}

/** What a run is about to do: its settings (new or recorded), folder, plan and the cells left. */
type ResolvedRun = Awaited<ReturnType<typeof resolveRun>>;

async function resolveRun(req: RunRequest, deps: RunDeps) {
  const cores = deps.cores ?? coreCount();
  const previous = req.resume === undefined ? undefined : await readResults(req.resume);
  const resolved = previous
    ? resolveResumeSettings(previous.settings, req, cores)
    : resolveSettings(req, cores);
  const now = new Date();
  const resumeDir = req.resume?.endsWith(".json") ? path.dirname(req.resume) : req.resume;
  const dir = path.resolve(resumeDir ?? req.out ?? defaultOutDir(now));
  if (!previous) await refuseUsedOut(dir);
  const fullPlan = await planRun(resolved.settings, deps.builtinDirs);
  const plan = shardPlan(fullPlan, resolved.settings.shard);
  if (req.autoRounds && !previous) {
    const { settings } = resolved;
    const rounds = planVariantRounds(
      fullPlan,
      settings.variants ?? [],
      {
        budgetMinutes: req.budgetMinutes,
        targetPct: req.targetPct,
        shards: settings.shard?.count ?? 1,
        lifetime: settings.proxyLifetime,
      },
      testedSet(settings),
    );
    resolved.settings = withRoundsPlan(settings, rounds);
  }
  const plannedCells = plan.blocks.flatMap((b) => b.cells);
  const { keep, todo } = previous
    ? splitForResume(previous.cells, plan)
    : { keep: [], todo: new Set(plannedCells.map((c) => c.id)) };
  refuseEmptyPlan(plan);
  return { resolved, ...(previous ? { previous } : {}), dir, now, plan, plannedCells, keep, todo };
}

/** The results folder and its subfolders; the run's certificates when a cell is over TLS. */
async function makeResultsDir(run: ResolvedRun): Promise<(TlsFiles & { caPem: string }) | undefined> {
  for (const sub of ["raw", "logs", "work"]) await mkdir(path.join(run.dir, sub), { recursive: true });
  return runCertificates(
    run.dir,
    run.plannedCells.map((c) => c.scenario.manifest.protocol),
  );
}

/** results.json before the first cell: a new run's header, or a resumed run's with its finished cells. */
function startingResults(run: ResolvedRun, environment: Results["environment"]): Results {
  const { previous, plan } = run;
  if (previous) {
    const results: Results = {
      ...previous,
      schemaVersion: SCHEMA_VERSION,
      environment: {
        ...environment,
        proxies: { ...previous.environment.proxies, ...environment.proxies },
        tools: { ...previous.environment.tools, ...environment.tools },
      },
      cells: run.keep,
      skipped: plan.skipped,
    };
    delete results.finishedAt;
    return results;
  }
  return {
    $schema: SCHEMA_ID,
    schemaVersion: SCHEMA_VERSION,
    tool: { name: "proxybench", version: VERSION },
    runId: runStamp(run.now),
    startedAt: run.now.toISOString(),
    settings: run.resolved.settings,
    environment,
    skipped: plan.skipped,
    cells: [],
  };
}

/** What is about to happen: the folder, the cores, warnings, skipped cells, variants. */
function announce(run: ResolvedRun, say: (line: string) => void): void {
  const { settings, layoutNote, warnings } = run.resolved;
  say(`proxybench ${VERSION}: results in ${run.dir}`);
  say(`cpus: ${formatCpuLayout(settings.cpus)} (${layoutNote})`);
  for (const w of warnings) say(`warning: ${w}`);
  for (const s of run.plan.skipped) say(`skipped ${skippedName(s)}: ${s.reason}`);
  for (const n of run.plan.notes) say(`note: ${n}`);
  if (run.keep.length > 0) say(`resuming: ${run.keep.length} finished cell(s) kept, ${run.todo.size} to run`);
  if (settings.variants) {
    say(
      `variants: ${settings.variants.map((v) => `${v.name}=${v.dir}`).join(", ")}; ${roundsText(settings)}`,
    );
  }
  const { roundOrder, seed } = settings;
  say(
    `round order: ${roundOrder === "random" ? `random (seed ${seed}; --seed ${seed} repeats it)` : "abba"}`,
  );
}

/** "10 rounds", or the looks of --repetitions auto. */
function roundsText(settings: ResolvedSettings["settings"]): string {
  const plan = settings.sequential;
  if (plan === undefined) return `${settings.repetitions} rounds`;
  const looks = plan.looks.map((l) => l.rounds).join(", ");
  const budget = plan.budgetMinutes === undefined ? "" : `, budget ${plan.budgetMinutes} min`;
  return `rounds auto: ${plan.tests} tested metrics at alpha ${plan.alpha}, looks at ${looks} rounds${budget}; a block stops at a look once every metric is decided`;
}

/** Planned seconds of the cells still to run, of a block or (no block) of the run. */
function remainingSeconds(run: ResolvedRun, block?: Block): number {
  if (block === undefined) return run.plan.blocks.reduce((sum, b) => sum + remainingSeconds(run, b), 0);
  const { repetitions, proxyLifetime } = run.resolved.settings;
  const left = block.cells.filter((c) => run.todo.has(c.id)).length;
  return plannedSeconds(block, repetitions, left, proxyLifetime);
}

/**
 * On SIGINT/SIGTERM: the finished cells kept in results.json (an unfinished one is measured
 * anew by --resume), and how to finish the matrix.
 */
function keepFinishedCells(results: Results, file: ResultsFile, dir: string): string {
  const unfinished = results.cells.filter((c) => c.finishedAt === undefined).length;
  results.cells = results.cells.filter((c) => c.finishedAt !== undefined);
  return (
    `interrupted: ${results.cells.length} finished cell(s) kept in ${file.file}` +
    (unfinished > 0 ? `, ${unfinished} unfinished dropped` : "") +
    `; finish the matrix with: proxybench run --resume ${resumePath(dir)}`
  );
}

/**
 * Each block of the run with the cells left to run, and with --repetitions auto the rounds'
 * plan: each block may spend the budget up to its share of the planned time, plus what earlier
 * blocks left.
 */
function blockRunner(
  run: ResolvedRun,
  contextOf: (session: RunSession) => BlockContext,
): ReadyMeasurement["blockRun"] {
  const { settings } = run.resolved;
  const total = remainingSeconds(run);
  const pair = comparedVariants(settings.variants ?? []);
  const budgetMs = (settings.sequential?.budgetMinutes ?? 0) * 60_000;
  let share = 0;
  return (block, session) => {
    const ctx = contextOf(session);
    const cells = block.cells.filter((c) => run.todo.has(c.id));
    if (cells.length === 0) return undefined;
    share += total > 0 ? remainingSeconds(run, block) / total : 0;
    const rounds =
      settings.sequential && pair
        ? {
            plan: settings.sequential,
            variants: pair,
            tested: testedSet(settings),
            steal: stealRuleOf({ settings, environment: ctx.results.environment }),
            ...pickDefined(settings.sequential, ["targetPct"]),
            ...(budgetMs > 0 ? { deadlineMs: run.now.getTime() + budgetMs * share } : {}),
          }
        : undefined;
    return wallClockBlock(block, cells, ctx, rounds);
  };
}

/** Cells in plan order (a resumed run appends), and when the run finished. */
function settleResults(run: ResolvedRun, results: Results): void {
  const order = new Map(run.plannedCells.map((c, i) => [c.id, i]));
  results.cells.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  results.finishedAt = new Date().toISOString();
}

/** The table, what is not ok, where results.json is (saved by then). */
function finishRun(results: Results, file: ResultsFile, deps: RunDeps): RunOutcome {
  const stdout = deps.stdout ?? process.stdout;
  if (deps.renderReport) stdout.write(`${deps.renderReport(results)}\n`);
  const notOk = results.cells.filter((c) => c.status !== "ok");
  for (const c of notOk) {
    (deps.stderr ?? process.stderr).write(
      `not ok: ${c.id}: ${c.status}${c.reasons.length ? ` (${c.reasons.join("; ")})` : ""}\n`,
    );
  }
  stdout.write(`results: ${file.file}\n`);
  return { dir: file.dir, results, exitCode: notOk.length > 0 ? 1 : 0 };
}
