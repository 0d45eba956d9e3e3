import { readFileSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { emptyMeasurement } from "../engines/measurement.js";
import type { Classification, EngineAdapter, EngineMeasurement, ProbeResult } from "../engines/types.js";
import { loadManifests, type ManifestDirs } from "../manifests/load.js";
import type { ScenarioManifest } from "../manifests/schema.js";
import { SCHEMA_ID } from "../results/json-schema.js";
import { readResults, RESULTS_FILE } from "../results/io.js";
import {
  SCHEMA_VERSION,
  worstStatus,
  type Cell,
  type CellStatus,
  type Engine,
  type Repetition,
  type Results,
} from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { PROJECT_ROOT } from "../util/paths.js";
import { freePort } from "../util/ports.js";
import { onInterrupt, stopAll } from "../util/processes.js";
import { captureEnvironment } from "../environment/capture.js";
import { groupCpuSeconds } from "./cpu-usage.js";
import { formatCpuLayout } from "./cpus.js";
import { logTail, tailOf } from "./logs.js";
import { NativeRuntime } from "./native-runtime.js";
import {
  buildPlan,
  interleave,
  plannedSeconds,
  splitForResume,
  type Block,
  type PlannedCell,
} from "./plan.js";
import { Progress, type ProgressStream } from "./progress.js";
import { nativeAvailability } from "./proxy-binary.js";
import { waitReady } from "./ready.js";
import { ResultsFile } from "./results-file.js";
import type { RunningProcess, Runtime } from "./runtime.js";
import { createRuntime } from "./runtime-factory.js";
import {
  coreCount,
  defaultOutDir,
  resolveResumeSettings,
  resolveSettings,
  runStamp,
  type ResolvedSettings,
  type RunRequest,
} from "./settings.js";
import {
  buildDockerProxySpec,
  buildNativeProxySpec,
  buildUpstreamSpec,
  imageRef,
  renderConfigs,
  type ProxyContext,
} from "./specs.js";
import { ensureUpstream, startUpstream, type StartedUpstream } from "./upstream.js";

/**
 * `proxybench run`: for each scenario and load level, start the upstream and every proxy
 * (pinned), check each one answers and answers correctly, warm up, then measure repetitions
 * interleaved across proxies, writing results.json after each one.
 */

/** What the runner needs from the engines (src/engines); tests may pass their own. */
export interface EngineApi {
  getEngine(name: Engine): EngineAdapter;
  classifyRepetition(m: EngineMeasurement, ctx: { loadgenCores: number }): Classification;
  probe(baseUrl: string, scenario: ScenarioManifest): Promise<ProbeResult>;
}

export interface RunDeps {
  engines: EngineApi;
  /** Where the proxies run; default: the one settings.runtime names. */
  runtime?: Runtime;
  stdout?: ProgressStream;
  stderr?: ProgressStream;
  cores?: number;
  /** Built-in manifest folders (tests). */
  builtinDirs?: Pick<ManifestDirs, "builtinProxiesDir" | "builtinScenariosDir">;
  /** Save and exit 130 on SIGINT/SIGTERM (the CLI); default true. */
  handleSignals?: boolean;
  /** Renders the final table; absent: no table. */
  renderReport?: (results: Results) => string;
}

export interface RunOutcome {
  dir: string;
  results: Results;
  /** 0: every cell ok; 1: some cell is not. */
  exitCode: number;
}

interface ActiveCell {
  planned: PlannedCell;
  cell: Cell;
  baseUrl: string;
  proc?: RunningProcess;
  logFile?: string;
  /** Cell-level problems (setup, a process that died), on top of its repetitions'. */
  problems: Array<{ status: CellStatus; reason: string }>;
  stopped: boolean;
}

const LOG_TAIL_LINES = 8;

/** The package version, found from src/ (tests) and dist/src/ (the CLI) alike. */
const VERSION = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }
).version;

export async function runBenchmark(req: RunRequest, deps: RunDeps): Promise<RunOutcome> {
  const stderr = deps.stderr ?? process.stderr;
  const stdout = deps.stdout ?? process.stdout;
  const cores = deps.cores ?? coreCount();

  // 1. Settings (new or recorded), manifests, plan.
  let previous: Results | undefined;
  let resolved: ResolvedSettings;
  if (req.resume !== undefined) {
    previous = await readResults(req.resume);
    resolved = resolveResumeSettings(previous.settings, req, cores);
  } else {
    resolved = resolveSettings(req, cores);
  }
  const { settings } = resolved;
  const now = new Date();
  const resumeDir = req.resume?.endsWith(".json") ? path.dirname(req.resume) : req.resume;
  const dir = path.resolve(resumeDir ?? req.out ?? defaultOutDir(now));
  if (!previous && (await fileSize(path.join(dir, RESULTS_FILE))) > 0) {
    throw new UserError(
      `--out ${dir} already holds results; finish them with --resume ${dir} or choose another --out`,
    );
  }
  const manifests = await loadManifests({
    ...deps.builtinDirs,
    ...(settings.proxiesDirs ? { proxiesDirs: settings.proxiesDirs } : {}),
    ...(settings.scenariosDirs ? { scenariosDirs: settings.scenariosDirs } : {}),
  });
  const plan = buildPlan(settings, manifests);
  const { keep, todo } = previous
    ? splitForResume(previous.cells, plan)
    : { keep: [], todo: new Set(plan.blocks.flatMap((b) => b.cells.map((c) => c.id))) };
  const plannedCells = plan.blocks.flatMap((b) => b.cells);
  if (plannedCells.length === 0) {
    throw new UserError(
      `nothing to run: ${plan.skipped.map((s) => `${s.proxy} (${s.reason})`).join(", ") || "no proxy selected"}`,
    );
  }

  // 2. Everything needed is here: engines, proxy binaries, the upstream.
  const tools: Record<string, string> = {};
  const needed = new Set(plan.blocks.map((b) => b.engine));
  for (const engine of new Set<Engine>([...needed, "k6", "wrk"])) {
    try {
      tools[engine] = (await deps.engines.getEngine(engine).locate()).version;
    } catch (err) {
      if (needed.has(engine)) throw err; // its message says how to install it
    }
  }
  const binaries = new Map<string, { path: string; version: string }>();
  if (settings.runtime === "native") {
    const missing: string[] = [];
    for (const proxy of new Set(plannedCells.map((c) => c.proxy))) {
      const a = await nativeAvailability(proxy);
      if (a.kind === "found") binaries.set(proxy.manifest.name, { path: a.path, version: a.version });
      if (a.kind === "missing")
        missing.push(`${proxy.manifest.name}: '${a.binary}' not found (fix: ${a.fix})`);
    }
    if (missing.length > 0)
      throw new UserError(`cannot run every proxy asked for:\n  ${missing.join("\n  ")}`, 1);
  }
  const upstreamBinary = await ensureUpstream();
  const runtime = deps.runtime ?? (await createRuntime(settings.runtime));
  const upstreamRuntime = runtime.kind === "native" ? runtime : new NativeRuntime();

  // 3. The results directory and file.
  await mkdir(dir, { recursive: true });
  for (const sub of ["raw", "logs", "work"]) await mkdir(path.join(dir, sub), { recursive: true });
  const environment = await captureEnvironment({
    tools,
    proxies: Object.fromEntries([...binaries].map(([name, b]) => [name, b.version])),
  });
  const results: Results = previous
    ? {
        ...previous,
        environment: {
          ...environment,
          proxies: { ...previous.environment.proxies, ...environment.proxies },
          tools: { ...previous.environment.tools, ...environment.tools },
        },
        cells: keep,
        skipped: plan.skipped,
      }
    : {
        $schema: SCHEMA_ID,
        schemaVersion: SCHEMA_VERSION,
        tool: { name: "proxybench", version: VERSION },
        runId: runStamp(now),
        startedAt: now.toISOString(),
        settings,
        environment,
        skipped: plan.skipped,
        cells: [],
      };
  delete results.finishedAt;
  const file = new ResultsFile(dir);
  await file.save(results);

  // 4. What is about to happen.
  const say = (line: string) => stderr.write(`${line}\n`);
  say(`proxybench ${VERSION}: results in ${dir}`);
  say(`cpus: ${formatCpuLayout(settings.cpus)} (${resolved.layoutNote})`);
  for (const w of resolved.warnings) say(`warning: ${w}`);
  for (const s of plan.skipped) say(`skipped ${s.proxy}: ${s.reason}`);
  if (keep.length > 0) say(`resuming: ${keep.length} finished cell(s) kept, ${todo.size} to run`);

  const totalS = plan.blocks.reduce(
    (sum, b) => sum + plannedSeconds(b, settings.repetitions, b.cells.filter((c) => todo.has(c.id)).length),
    0,
  );
  const progress = new Progress(stderr, totalS);
  const abort = new AbortController();
  let interrupted = false;
  const removeHandlers: Array<() => void> = [];
  let interruptedForever: Promise<never> | undefined;
  if (deps.handleSignals !== false) {
    const flag = () => {
      interrupted = true;
      abort.abort();
    };
    process.once("SIGINT", flag);
    process.once("SIGTERM", flag);
    removeHandlers.push(() => {
      process.off("SIGINT", flag);
      process.off("SIGTERM", flag);
    });
    removeHandlers.push(
      onInterrupt(async () => {
        progress.finish();
        const unfinished = results.cells.filter((c) => c.finishedAt === undefined).length;
        results.cells = results.cells.filter((c) => c.finishedAt !== undefined);
        await file.saveFinal(results);
        stderr.write(
          `\ninterrupted: ${results.cells.length} finished cell(s) kept in ${file.file}` +
            (unfinished > 0 ? `, ${unfinished} unfinished dropped` : "") +
            `; finish the matrix with: proxybench run --resume ${path.relative(process.cwd(), dir) || "."}\n`,
        );
      }),
    );
  }

  const ctx: BlockContext = {
    deps,
    settings,
    runtime,
    upstreamRuntime,
    upstreamBinary,
    dir,
    results,
    binaries,
    progress,
    signal: abort.signal,
    save: () => file.save(results),
    isInterrupted: () => interrupted,
  };
  try {
    for (const block of plan.blocks) {
      const cells = block.cells.filter((c) => todo.has(c.id));
      if (cells.length === 0) continue;
      if (interrupted) break;
      await runBlock(block, cells, ctx);
    }
  } catch (err) {
    if (!interrupted) {
      progress.finish();
      await stopAll();
      await file.save(results).catch(() => undefined);
      for (const remove of removeHandlers) remove();
      throw err;
    }
  }
  if (interrupted) {
    // The signal handler saves, reports and exits 130; nothing more happens here.
    interruptedForever ??= new Promise<never>(() => undefined);
    return interruptedForever;
  }
  progress.finish();
  await stopAll();
  for (const remove of removeHandlers) remove();

  // 5. Sort cells in plan order (a resumed run appends), finish, report.
  const order = new Map(plannedCells.map((c, i) => [c.id, i]));
  results.cells.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  results.finishedAt = new Date().toISOString();
  await file.save(results);

  if (deps.renderReport) stdout.write(`${deps.renderReport(results)}\n`);
  const notOk = results.cells.filter((c) => c.status !== "ok");
  for (const c of notOk) {
    stderr.write(`not ok: ${c.id}: ${c.status}${c.reasons.length ? ` (${c.reasons.join("; ")})` : ""}\n`);
  }
  stdout.write(`results: ${file.file}\n`);
  return { dir, results, exitCode: notOk.length > 0 ? 1 : 0 };
}

interface BlockContext {
  deps: RunDeps;
  settings: Results["settings"];
  runtime: Runtime;
  upstreamRuntime: Runtime;
  upstreamBinary: string;
  dir: string;
  results: Results;
  binaries: Map<string, { path: string; version: string }>;
  progress: Progress;
  signal: AbortSignal;
  save: () => Promise<void>;
  isInterrupted: () => boolean;
}

class Interrupted extends Error {}

/** One scenario and load level: one upstream, the proxies up, warm-ups, interleaved repetitions. */
async function runBlock(block: Block, cells: PlannedCell[], ctx: BlockContext): Promise<void> {
  const { settings, progress } = ctx;
  const check = () => {
    if (ctx.isInterrupted()) throw new Interrupted();
  };
  const upstreamLogRel = `logs/${block.key}-upstream.log`;
  let upstream: StartedUpstream | undefined;
  const active: ActiveCell[] = [];
  const perCellS = plannedSeconds(block, settings.repetitions, 1);
  try {
    upstream = await startUpstream(
      ctx.upstreamRuntime,
      buildUpstreamSpec(
        ctx.upstreamBinary,
        block.scenario.manifest,
        settings.cpus.upstream,
        path.join(ctx.dir, upstreamLogRel),
      ),
    );
    const upstreamUrl = `http://${upstream.host}:${upstream.port}`;
    const notReady = await waitReady(`${upstreamUrl}/health`, 10, upstream.proc, ctx.signal);
    if (notReady) {
      throw new UserError(
        `the upstream server is not answering: ${notReady}\n${await logTail(path.join(ctx.dir, upstreamLogRel))}`,
        1,
      );
    }

    // Bring every proxy up and check it answers correctly before any load.
    for (const planned of cells) {
      check();
      const a = await startCell(planned, block, upstream, upstreamLogRel, ctx);
      ctx.results.cells.push(a.cell);
      if (!a.stopped) {
        progress.step(`${block.key} ${planned.proxy.manifest.name}`, -1, settings.repetitions);
        const probe = await ctx.deps.engines
          .probe(a.baseUrl, block.scenario.manifest)
          .catch((err: unknown): ProbeResult => ({
            ok: false,
            reasons: [`could not send the scenario's requests (${(err as Error).message})`],
            statusCodes: {},
          }));
        if (!probe.ok) {
          const codes = Object.entries(probe.statusCodes)
            .map(([code, n]) => `${code}: ${n}`)
            .join(", ");
          a.problems.push(
            ...probe.reasons.map((reason) => ({ status: "invalid" as const, reason: `probe: ${reason}` })),
          );
          if (probe.reasons.length === 0 || codes) {
            a.problems.push({ status: "invalid", reason: `probe: status codes seen ${codes || "none"}` });
          }
          await stopCell(a);
        }
      }
      if (a.stopped) {
        finishCell(a);
        progress.drop(perCellS);
        progress.line(`${a.cell.id}: ${a.cell.status}: ${a.cell.reasons.join("; ")}`);
      } else {
        active.push(a);
      }
      await ctx.save();
    }

    // Warm-up (discarded), then the measured repetitions, interleaved.
    if (block.load.warmupS > 0) {
      for (const a of active) {
        check();
        progress.step(`${block.key} ${a.planned.proxy.manifest.name}`, 0, settings.repetitions);
        await measure(
          a,
          block,
          block.load.warmupS,
          `${block.key}-${a.planned.proxy.manifest.name}-warmup`,
          ctx,
        );
        progress.advance(block.load.warmupS);
        await checkAlive(a, "the warm-up", ctx, perCellS - block.load.warmupS);
      }
    }
    for (const { cell: a, rep } of interleave(active, settings.repetitions)) {
      if (a.stopped) continue;
      check();
      progress.step(`${block.key} ${a.planned.proxy.manifest.name}`, rep + 1, settings.repetitions);
      const startedAt = new Date().toISOString();
      const stem = `${block.key}-${a.planned.proxy.manifest.name}-${a.planned.engine}-rep${rep + 1}`;
      const { m, wallS, proxyCpu } = await measure(a, block, block.load.durationS, stem, ctx);
      check();
      progress.advance(block.load.durationS);
      const classified = ctx.deps.engines.classifyRepetition(m, {
        loadgenCores: settings.cpus.loadgen.length,
      });
      const repetition = toRepetition(rep, startedAt, m, classified, wallS, proxyCpu);
      const died = await checkAlive(
        a,
        `repetition ${rep + 1}`,
        ctx,
        (settings.repetitions - rep - 1) * block.load.durationS,
      );
      if (died) {
        repetition.status = "failed";
        repetition.reasons.push(died);
      }
      if (!upstream.proc.alive()) {
        const reason = `the upstream server exited during repetition ${rep + 1} (log: ${upstreamLogRel})`;
        repetition.status = "failed";
        repetition.reasons.push(reason);
        for (const other of active) {
          if (!other.stopped) {
            other.problems.push({ status: "failed", reason });
            await stopCell(other);
          }
        }
      }
      a.cell.repetitions.push(repetition);
      updateCell(a);
      if (rep + 1 === settings.repetitions || a.stopped) finishCell(a);
      progress.line(describeRepetition(a.cell.id, rep, settings.repetitions, repetition));
      await ctx.save();
    }
    for (const a of active) if (a.cell.finishedAt === undefined) finishCell(a);
    await ctx.save();
  } catch (err) {
    if (err instanceof Interrupted) return;
    throw err;
  } finally {
    for (const a of active) await stopCell(a);
    await upstream?.proc.stop();
  }
}

/** Creates the cell and, for a proxy, renders its configs, starts it and waits until it answers. */
async function startCell(
  planned: PlannedCell,
  block: Block,
  upstream: StartedUpstream,
  upstreamLogRel: string,
  ctx: BlockContext,
): Promise<ActiveCell> {
  const m = planned.proxy.manifest;
  const name = m.name;
  const binary = ctx.binaries.get(name);
  const cell: Cell = {
    id: planned.id,
    proxy: name,
    scenario: planned.scenario.manifest.name,
    engine: planned.engine,
    load: planned.load,
    status: "ok",
    reasons: [],
    runtime: ctx.settings.runtime,
    tuning: m.kind === "direct" ? {} : { ...m.tuning, cores: ctx.settings.cpus.proxy.length },
    repetitions: [],
    startedAt: new Date().toISOString(),
    logs: [upstreamLogRel],
    ...(binary ? { proxyVersion: binary.version } : {}),
  };
  const a: ActiveCell = { planned, cell, baseUrl: "", problems: [], stopped: false };
  if (m.kind === "direct") {
    a.baseUrl = `http://${upstream.host}:${upstream.port}`;
    return a;
  }
  const logRel = `logs/${block.key}-${name}.log`;
  const workdir = path.join(ctx.dir, "work", `${block.key}-${name}`);
  await mkdir(workdir, { recursive: true });
  cell.logs.unshift(logRel);
  const logFile = path.join(ctx.dir, logRel);
  a.logFile = logFile;
  const section = ctx.runtime.kind === "docker" ? "image" : "native";
  const templates: Record<string, string> = {};
  for (const c of m[section]?.configs ?? []) {
    templates[c.template] = await readFile(path.join(planned.proxy.dir, c.template), "utf8");
  }
  // The port is free when chosen but another process may take it before the proxy binds it:
  // one more try on a new port when the proxy says so.
  for (let attempt = 1; ; attempt++) {
    const pctx: ProxyContext = {
      listenHost: "127.0.0.1",
      listenPort: await freePort(),
      upstreamHost: upstream.host,
      upstreamPort: upstream.port,
      cpus: ctx.settings.cpus.proxy,
      workdir,
      logFile,
    };
    a.baseUrl = `http://${pctx.listenHost}:${pctx.listenPort}`;
    const configs = renderConfigs(planned.proxy, section, pctx, templates);
    for (const c of configs) {
      await mkdir(path.dirname(c.output), { recursive: true });
      await writeFile(c.output, c.content);
    }
    const spec =
      section === "image"
        ? buildDockerProxySpec(planned.proxy, pctx, configs, imageRef(name, ctx.settings.imageTag))
        : buildNativeProxySpec(planned.proxy, pctx, binary?.path ?? m.native?.binary ?? name);
    const logOffset = await fileSize(logFile);
    try {
      a.proc = await ctx.runtime.start(spec);
    } catch (err) {
      a.problems.push({ status: "failed", reason: `${name} could not start: ${(err as Error).message}` });
      a.stopped = true;
      return a;
    }
    const notReady = await waitReady(`${a.baseUrl}${m.ready.path}`, m.ready.timeoutS, a.proc, ctx.signal);
    if (!notReady) return a;
    if (ctx.isInterrupted()) throw new Interrupted();
    await stopCell(a);
    const tail = tailOf(await readFrom(logFile, logOffset), LOG_TAIL_LINES);
    if (attempt === 1 && PORT_IN_USE.test(tail)) {
      a.stopped = false;
      continue;
    }
    a.problems.push({
      status: "failed",
      reason: `${name} did not come up: ${notReady}; ${tail ? `log (${logRel}): ${oneLine(tail)}` : `empty log ${logRel}`}`,
    });
    return a;
  }
}

const PORT_IN_USE = /address already in use|EADDRINUSE|cannot bind socket/i;

async function fileSize(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => 0,
  );
}

/** What a log file received after `offset` bytes (a resumed run appends to its logs). */
async function readFrom(file: string, offset: number): Promise<string> {
  const data = await readFile(file).catch(() => Buffer.alloc(0));
  return data.subarray(offset).toString("utf8");
}

/** One engine run against a cell, with the proxy's CPU time over the run. */
async function measure(
  a: ActiveCell,
  block: Block,
  durationS: number,
  fileStem: string,
  ctx: BlockContext,
): Promise<{ m: EngineMeasurement; wallS: number; proxyCpu?: number }> {
  const pid = a.proc?.alive() ? a.proc.pid : undefined;
  const cpuBefore = pid === undefined ? undefined : await groupCpuSeconds(pid);
  const started = performance.now();
  let m: EngineMeasurement;
  try {
    m = await ctx.deps.engines.getEngine(block.engine).run({
      scenario: block.scenario.manifest,
      scenarioDir: block.scenario.dir,
      load: block.load,
      durationS,
      baseUrl: a.baseUrl,
      cpus: ctx.settings.cpus.loadgen,
      outDir: path.join(ctx.dir, "raw"),
      fileStem,
      signal: ctx.signal,
    });
  } catch (err) {
    if (ctx.isInterrupted()) throw new Interrupted();
    m = failedMeasurement(`${block.engine} failed: ${(err as Error).message}`);
  }
  const wallS = (performance.now() - started) / 1000;
  const cpuAfter = pid === undefined ? undefined : await groupCpuSeconds(pid);
  const proxyCpu =
    cpuBefore !== undefined && cpuAfter !== undefined && wallS > 0
      ? round((cpuAfter - cpuBefore) / Math.max(m.durationS, wallS), 3)
      : undefined;
  return { m, wallS, ...(proxyCpu !== undefined ? { proxyCpu } : {}) };
}

/** When the cell's proxy died: stops the cell and returns why; undefined while it is alive. */
async function checkAlive(
  a: ActiveCell,
  during: string,
  ctx: BlockContext,
  remainingS: number,
): Promise<string | undefined> {
  if (!a.proc || a.proc.alive() || a.stopped) return undefined;
  const { code, signal } = await a.proc.exited;
  const tail = a.logFile ? await logTail(a.logFile, LOG_TAIL_LINES) : "";
  const reason =
    `${a.planned.proxy.manifest.name} exited during ${during} (${signal ? `signal ${signal}` : `exit code ${code}`})` +
    (tail ? `; log: ${oneLine(tail)}` : "");
  a.problems.push({ status: "failed", reason });
  a.stopped = true;
  ctx.progress.drop(remainingS);
  return reason;
}

async function stopCell(a: ActiveCell): Promise<void> {
  a.stopped = true;
  // Also when the proxy died: its runtime removes what it left (workers, a container).
  await a.proc?.stop();
}

function updateCell(a: ActiveCell): void {
  a.cell.status = worstStatus([
    ...a.problems.map((p) => p.status),
    ...a.cell.repetitions.map((r) => r.status),
  ]);
  const reasons = [...a.cell.repetitions.flatMap((r) => r.reasons), ...a.problems.map((p) => p.reason)];
  a.cell.reasons = [...new Set(reasons)];
}

function finishCell(a: ActiveCell): void {
  updateCell(a);
  a.cell.finishedAt = new Date().toISOString();
}

export function toRepetition(
  index: number,
  startedAt: string,
  m: EngineMeasurement,
  classified: Classification,
  wallS: number,
  proxyCpu?: number,
): Repetition {
  return {
    index,
    startedAt,
    durationS: m.durationS > 0 ? m.durationS : Math.max(wallS, 0.001),
    status: classified.status,
    reasons: [...classified.reasons, ...m.engineErrors.filter((e) => !classified.reasons.includes(e))],
    rps: m.rps,
    requests: m.requests,
    errors: m.errors,
    non2xx: m.non2xx,
    checkFailures: m.checkFailures,
    statusCodes: m.statusCodes,
    droppedIterations: m.droppedIterations,
    ...(m.bytesReceived !== undefined ? { bytesReceived: m.bytesReceived } : {}),
    latencyMs: m.latencyMs,
    ...(m.latencyPercentilesMs ? { latencyPercentilesMs: m.latencyPercentilesMs } : {}),
    ...(m.loadgenCpu !== undefined ? { loadgenCpu: m.loadgenCpu } : {}),
    ...(proxyCpu !== undefined ? { proxyCpu } : {}),
    raw: m.raw.map((r) => `raw/${r}`),
  };
}

/** A measurement for an engine run that threw: nothing measured, the error recorded. */
export function failedMeasurement(error: string): EngineMeasurement {
  return { ...emptyMeasurement(0), raw: [], exitCode: null, engineErrors: [error] };
}

export function describeRepetition(id: string, rep: number, reps: number, r: Repetition): string {
  const figures = `${Math.round(r.rps)} req/s, p99 ${r.latencyMs.p99.toFixed(2)} ms`;
  const status = r.status === "ok" ? "ok" : `${r.status}: ${r.reasons.join("; ")}`;
  return `${id} rep ${rep + 1}/${reps}: ${figures}, ${status}`;
}

function oneLine(text: string): string {
  return text.split("\n").join(" | ");
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
