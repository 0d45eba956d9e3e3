import { mkdir, readdir, rename, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { captureEnvironment } from "../environment/capture.js";
import type { LoadedProxy } from "../manifests/load.js";
import type { ScenarioManifest } from "../manifests/schema.js";
import { worstStatus, type CpuLayout, type Settings } from "../results/schema.js";
import { defaultCpuLayout, parseCpuLayout } from "../runner/cpus.js";
import { NativeRuntime } from "../runner/native-runtime.js";
import type { Block, PlannedCell } from "../runner/plan.js";
import { nativeAvailability } from "../runner/proxy-binary.js";
import { roundOrder } from "../runner/rounds.js";
import { buildUpstreamSpec } from "../runner/specs.js";
import { ensureUpstream, startUpstream, type StartedUpstream } from "../runner/upstream.js";
import { planRun, type Variant } from "../runner/variants.js";
import { UserError } from "../util/errors.js";
import { measureOnce } from "./measure.js";
import { renderInstructionsMarkdown } from "./report.js";
import {
  countedCellId,
  INSTRUCTIONS_FILE,
  INSTRUCTIONS_SCHEMA_VERSION,
  type CountedCell,
  type InstructionsResults,
} from "./schema.js";
import { findValgrind, IMAGE_ONLY_REASON, instructionsSkipReason, type ValgrindTools } from "./valgrind.js";
import { pickDefined } from "../util/objects.js";

/** `proxybench run --measure instructions`: the fixed sequence and its defaults. */
const DEFAULT_REQUESTS = 1000;
const DEFAULT_WARMUP_REQUESTS = 200;
const DEFAULT_CONNECTIONS = 2;
const DEFAULT_COUNTED_REPETITIONS = 5;

export interface InstructionsRequest {
  proxies?: string[];
  scenarios?: string[];
  repetitions?: number;
  requests?: number;
  warmupRequests?: number;
  connections?: number;
  cpus?: string;
  out?: string;
  proxiesDirs?: string[];
  scenariosDirs?: string[];
  /** Sets of manifests counted side by side (--variant NAME=DIR), in ABBA rounds. */
  variants?: Variant[];
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** One cell to count: a proxy of a variant, its binary, and its results entry. */
interface CountedJob {
  planned: PlannedCell;
  binaryPath: string;
  cell: CountedCell;
}

interface CountedBlock {
  scenario: string;
  jobs: CountedJob[];
}

interface Ready {
  results: InstructionsResults;
  dir: string;
  tools: ValgrindTools;
  blocks: CountedBlock[];
  log: (line: string) => void;
}

export async function runInstructions(
  request: InstructionsRequest,
): Promise<{ exitCode: number; results: InstructionsResults; dir: string }> {
  const ready = await prepare(request);
  for (const block of ready.blocks) await runBlock(ready, block);
  ready.results.finishedAt = new Date().toISOString();
  await save(ready);
  ready.log(`results: ${path.join(ready.dir, INSTRUCTIONS_FILE)}`);
  const allOk = ready.results.cells.every((c) => c.status === "ok");
  return { exitCode: allOk ? 0 : 1, results: ready.results, dir: ready.dir };
}

/**
 * The plan as the wall-clock mode makes it (planRun: the variants checked, each variant's
 * manifest folders, the plans merged by scenario), then each cell's binary found under Valgrind.
 */
async function prepare(request: InstructionsRequest): Promise<Ready> {
  const log = request.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const planSettings = toPlanSettings(request);
  const plan = await planRun(planSettings);
  const tools = await findValgrind();
  const found = await findBinaries(plan.blocks);
  const skipped = dedupe([
    ...plan.skipped.map((s) => ({ ...s, reason: IMAGE_ONLY_REASON })),
    ...found.skipped,
  ]);
  for (const s of skipped) log(`skipped ${s.proxy}: ${s.reason}`);
  const dir = await resultsDir(request.out);
  const variants = request.variants;
  if (variants) log(`variants: ${variants.map((v) => `${v.name}=${v.dir}`).join(", ")}; ABBA rounds`);
  const results: InstructionsResults = {
    schemaVersion: INSTRUCTIONS_SCHEMA_VERSION,
    measure: "instructions",
    runId: path.basename(dir),
    startedAt: new Date().toISOString(),
    settings: {
      proxies: planSettings.proxies,
      scenarios: planSettings.scenarios,
      repetitions: planSettings.repetitions,
      requests: positive("requests", request.requests ?? DEFAULT_REQUESTS),
      warmupRequests: request.warmupRequests ?? DEFAULT_WARMUP_REQUESTS,
      connections: positive("connections", request.connections ?? DEFAULT_CONNECTIONS),
      cpus: planSettings.cpus,
      valgrind: tools.version,
      ...(variants ? { variants } : {}),
    },
    environment: await captureEnvironment({ tools: { valgrind: tools.version }, proxies: found.versions }),
    skipped,
    cells: [],
  };
  const blocks = found.blocks.map((b) => ({
    scenario: b.scenario,
    jobs: b.jobs.map((j) => ({ ...j, cell: newCell(j.planned, found.versions) })),
  }));
  return { results, dir, tools, blocks, log };
}

/** The request as the wall-clock mode's settings, for planRun (native: Valgrind runs binaries). */
function toPlanSettings(request: InstructionsRequest): Settings {
  return {
    proxies: request.proxies ?? ["nginx", "haproxy"],
    scenarios: request.scenarios ?? ["passthrough"],
    repetitions: positive("--repetitions", request.repetitions ?? DEFAULT_COUNTED_REPETITIONS),
    cpus: cpuLayout(request.cpus),
    runtime: "native",
    ...pickDefined(request, ["proxiesDirs", "scenariosDirs", "variants"]),
  };
}

function positive(flag: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${flag}: expected a positive integer, got ${n}`);
  return n;
}

type Skipped = InstructionsResults["skipped"][number];

function dedupe(skipped: Skipped[]): Skipped[] {
  const seen = new Map(skipped.map((s) => [`${s.proxy}\n${s.reason}`, s]));
  return [...seen.values()];
}

/** Each planned cell's binary, or why it cannot be counted (one look per proxy folder). */
async function findBinaries(blocks: Block[]): Promise<{
  blocks: Array<{ scenario: string; jobs: Array<Omit<CountedJob, "cell">> }>;
  skipped: Skipped[];
  versions: Record<string, string>;
}> {
  const looked = new Map<string, { path: string; version: string } | { reason: string }>();
  const skipped: Skipped[] = [];
  const versions: Record<string, string> = {};
  const out = [];
  for (const block of blocks) {
    const jobs = [];
    for (const planned of block.cells) {
      const proxy = planned.proxy;
      const key = proxy.file;
      if (!looked.has(key)) looked.set(key, await lookFor(proxy));
      const found = looked.get(key) as { path: string; version: string } | { reason: string };
      const name = proxy.manifest.name;
      const shown = planned.variant === undefined ? name : `${name}@${planned.variant}`;
      if ("reason" in found) skipped.push({ proxy: shown, reason: found.reason });
      else {
        versions[shown] = found.version;
        jobs.push({ planned, binaryPath: found.path });
      }
    }
    out.push({ scenario: block.scenario.manifest.name, jobs });
  }
  return { blocks: out, skipped, versions };
}

async function lookFor(proxy: LoadedProxy): Promise<{ path: string; version: string } | { reason: string }> {
  const reason = instructionsSkipReason(proxy);
  if (reason !== undefined) return { reason };
  const found = await nativeAvailability(proxy);
  if (found.kind === "found") return { path: found.path, version: found.version };
  return { reason: found.kind === "missing" ? `binary not found (${found.fix})` : found.kind };
}

function cpuLayout(text: string | undefined): CpuLayout {
  const cores = os.availableParallelism();
  return text === undefined ? defaultCpuLayout(cores).layout : parseCpuLayout(text, cores);
}

async function resultsDir(out: string | undefined): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const dir = path.resolve(out ?? path.join("results", `${stamp}-instructions`));
  const existing = await readdir(dir).catch(() => [] as string[]);
  if (existing.includes(INSTRUCTIONS_FILE) || existing.includes("results.json")) {
    throw new UserError(`--out ${dir}: already holds results; choose another folder`);
  }
  await mkdir(dir, { recursive: true });
  return dir;
}

/** One upstream per distinct upstream setting of the block's scenarios (variants may differ). */
async function startUpstreams(ready: Ready, block: CountedBlock): Promise<Map<string, StartedUpstream>> {
  const out = new Map<string, StartedUpstream>();
  try {
    for (const { planned } of block.jobs) {
      const key = upstreamKey(planned);
      if (out.has(key)) continue;
      const logRel = `logs/${block.scenario}-upstream${out.size === 0 ? "" : `-${out.size + 1}`}.log`;
      await mkdir(path.join(ready.dir, "logs"), { recursive: true });
      const spec = buildUpstreamSpec(
        await ensureUpstream(),
        planned.scenario.manifest,
        ready.results.settings.cpus.upstream,
        path.join(ready.dir, logRel),
      );
      out.set(key, await startUpstream(new NativeRuntime(), spec));
    }
  } catch (err) {
    await stopAll(out);
    throw err;
  }
  return out;
}

function upstreamKey(planned: PlannedCell): string {
  return JSON.stringify(planned.scenario.manifest.upstream ?? {});
}

async function stopAll(upstreams: Map<string, StartedUpstream>): Promise<void> {
  for (const u of upstreams.values()) await u.proc.stop();
}

/**
 * The upstream(s), then the repetitions in rounds: every cell (each proxy of each variant) once
 * per round, the order reversed every other round (ABBA), so a drift weighs alike on base and head.
 */
async function runBlock(ready: Ready, block: CountedBlock): Promise<void> {
  const { results, dir } = ready;
  const upstreams = await startUpstreams(ready, block);
  try {
    results.cells.push(...block.jobs.map((j) => j.cell));
    for (const { cell: job, round } of roundOrder(block.jobs, results.settings.repetitions, "abba")) {
      if (job.cell.status === "failed") continue;
      const scenario: ScenarioManifest = job.planned.scenario.manifest;
      const rep = await measureOnce({
        ...jobPaths(job.cell, job.cell.repetitions.length, dir),
        proxy: job.planned.proxy,
        binaryPath: job.binaryPath,
        scenario,
        upstream: upstreams.get(upstreamKey(job.planned)) as StartedUpstream,
        cpus: results.settings.cpus.proxy.slice(0, 1),
        dir,
        index: job.cell.repetitions.length,
        ...pick(results.settings),
        tools: ready.tools,
      });
      const variant = job.planned.variant;
      addRepetition(job.cell, variant === undefined ? rep : { ...rep, round, variant }, ready.log);
      await save(ready);
    }
  } finally {
    await stopAll(upstreams);
  }
}

function pick(s: InstructionsResults["settings"]) {
  return { requests: s.requests, warmupRequests: s.warmupRequests, connections: s.connections };
}

/** Files of a cell: `<scenario>-<proxy>[@<variant>]`. */
function cellStem(cell: CountedCell): string {
  return `${cell.scenario}-${cell.proxy}${cell.variant === undefined ? "" : `@${cell.variant}`}`;
}

function jobPaths(cell: CountedCell, index: number, dir: string) {
  const stem = cellStem(cell);
  return {
    workdir: path.join(dir, "work", stem),
    logRel: `logs/${stem}.log`,
    rawRel: `raw/${stem}-rep${index + 1}.callgrind.out`,
  };
}

function newCell(planned: PlannedCell, versions: Record<string, string>): CountedCell {
  const proxy = planned.proxy.manifest.name;
  const scenario = planned.scenario.manifest.name;
  const variant = planned.variant;
  const version = versions[variant === undefined ? proxy : `${proxy}@${variant}`];
  const cell: CountedCell = {
    id: countedCellId(scenario, proxy, variant),
    proxy,
    ...(variant === undefined ? {} : { variant }),
    scenario,
    status: "ok",
    reasons: [],
    ...(version === undefined ? {} : { proxyVersion: version }),
    repetitions: [],
  };
  return { ...cell, log: `logs/${cellStem(cell)}.log` };
}

function addRepetition(
  cell: CountedCell,
  rep: CountedCell["repetitions"][number],
  log: (l: string) => void,
): void {
  cell.repetitions.push(rep);
  cell.status = worstStatus(cell.repetitions.map((r) => r.status));
  cell.reasons = [...new Set(cell.repetitions.flatMap((r) => r.reasons))];
  const figure =
    rep.instructionsPerRequest === undefined
      ? rep.reasons.join("; ")
      : `${rep.instructionsPerRequest.toFixed(1)} instructions/request in ${rep.wallS.toFixed(1)} s`;
  log(`${cell.id} rep ${rep.index + 1}: ${rep.status}, ${figure}`);
}

async function save(ready: Ready): Promise<void> {
  const file = path.join(ready.dir, INSTRUCTIONS_FILE);
  await writeFile(`${file}.tmp`, `${JSON.stringify(ready.results, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
  await writeFile(path.join(ready.dir, "instructions.md"), renderInstructionsMarkdown(ready.results));
}
