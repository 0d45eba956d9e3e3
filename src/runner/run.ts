import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import type { Classification, EngineAdapter, EngineMeasurement, ProbeResult } from "../engines/types.js";
import type { ManifestDirs } from "../manifests/load.js";
import type { ScenarioManifest } from "../manifests/schema.js";
import { SCHEMA_ID } from "../results/json-schema.js";
import { readResults, RESULTS_FILE } from "../results/io.js";
import { SCHEMA_VERSION, type Engine, type Results } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { onInterrupt, stopAll } from "../util/processes.js";
import { VERSION } from "../version.js";
import { captureEnvironment } from "../environment/capture.js";
import { runBlock } from "./block.js";
import type { BlockContext } from "./cell.js";
import { runCertificates } from "./tls.js";
import { formatCpuLayout } from "./cpus.js";
import { NativeRuntime } from "./native-runtime.js";
import { plannedSeconds, splitForResume } from "./plan.js";
import { Progress, type ProgressStream } from "./progress.js";
import { preflight } from "./preflight.js";
import { ResultsFile } from "./results-file.js";
import type { Runtime } from "./runtime.js";
import { createRuntime } from "./runtime-factory.js";
import {
  coreCount,
  defaultOutDir,
  resolveResumeSettings,
  resumePath,
  resolveSettings,
  runStamp,
  type ResolvedSettings,
  type RunRequest,
} from "./settings.js";
import { ensureUpstream } from "./upstream.js";
import { shardPlan } from "./shard.js";
import { planRun } from "./variants.js";

/**
 * `proxybench run`: for each scenario and load level, start the upstream and every proxy
 * (pinned), check each one answers and answers correctly, warm up, then measure repetitions
 * interleaved across proxies, writing results.json after each one.
 */

/** What the runner needs from the engines (src/engines); tests may pass their own. */
export interface EngineApi {
  getEngine(name: Engine): EngineAdapter;
  classifyRepetition(m: EngineMeasurement, ctx: { loadgenCores: number }): Classification;
  /** `ca`: the run's CA (PEM) for a target over TLS. */
  probe(baseUrl: string, scenario: ScenarioManifest, ca?: string): Promise<ProbeResult>;
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
  /** Called around every measured attempt (benchmarks put a neighbour's load there). */
  onMeasure?: (event: { cellId: string; variant?: string; round: number; phase: "start" | "end" }) => void;
  /** Renders the final table; absent: no table. */
  renderReport?: (results: Results) => string;
}

export interface RunOutcome {
  dir: string;
  results: Results;
  /** 0: every cell ok; 1: some cell is not. */
  exitCode: number;
}

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
  const plan = shardPlan(await planRun(settings, deps.builtinDirs), settings.shard);
  const { keep, todo } = previous
    ? splitForResume(previous.cells, plan)
    : { keep: [], todo: new Set(plan.blocks.flatMap((b) => b.cells.map((c) => c.id))) };
  const plannedCells = plan.blocks.flatMap((b) => b.cells);
  if (plannedCells.length === 0) {
    throw new UserError(
      `nothing to run: ${plan.skipped.map((s) => `${s.proxy}${s.scenario ? ` on ${s.scenario}` : ""} (${s.reason})`).join(", ") || "no proxy selected"}`,
    );
  }

  // 2. Everything needed is here (else exit 1 before anything is created): engines, proxy binaries, the upstream.
  const { tools, binaries } = await preflight(plan, settings, (e) => deps.engines.getEngine(e));
  const upstreamBinary = await ensureUpstream();
  const runtime = deps.runtime ?? createRuntime(settings.runtime);
  const upstreamRuntime = runtime.kind === "native" ? runtime : new NativeRuntime();

  // 3. The results directory and file.
  await mkdir(dir, { recursive: true });
  for (const sub of ["raw", "logs", "work"]) await mkdir(path.join(dir, sub), { recursive: true });
  const tls = await runCertificates(
    dir,
    plannedCells.map((c) => c.scenario.manifest.protocol),
  );
  const environment = await captureEnvironment({
    tools,
    proxies: Object.fromEntries([...binaries].map(([name, b]) => [name, b.version])),
  });
  const results: Results = previous
    ? {
        ...previous,
        schemaVersion: SCHEMA_VERSION,
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
  for (const s of plan.skipped)
    say(`skipped ${s.proxy}${s.scenario ? ` on ${s.scenario}` : ""}: ${s.reason}`);
  for (const n of plan.notes) say(`note: ${n}`);
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
            `; finish the matrix with: proxybench run --resume ${resumePath(dir)}\n`,
        );
      }),
    );
  }

  if (settings.variants) {
    say(
      `variants: ${settings.variants.map((v) => `${v.name}=${v.dir}`).join(", ")}; ${settings.repetitions} rounds, order ${settings.roundOrder ?? "abba"}${settings.roundOrder === "random" ? ` (seed ${settings.seed})` : ""}`,
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
    ...(tls === undefined ? {} : { tls }),
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

async function fileSize(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => 0,
  );
}
