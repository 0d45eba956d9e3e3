import { mkdir, readdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { captureEnvironment } from "../environment/capture.js";
import type { LoadedProxy } from "../manifests/load.js";
import { worstStatus, type CpuLayout, type Settings } from "../results/schema.js";
import { defaultCpuLayout, parseCpuLayout } from "../runner/cpus.js";
import { DockerRuntime } from "../runner/docker-runtime.js";
import { NativeRuntime } from "../runner/native-runtime.js";
import type { Runtime } from "../runner/runtime.js";
import { createRuntime, dockerClient, type RuntimeKind } from "../runner/runtime-factory.js";
import { runBlockLifecycle, type MeasurementStep } from "../runner/lifecycle.js";
import { proxyStem, type Block, type PlannedCell } from "../runner/plan.js";
import { nativeAvailability } from "../runner/proxy-binary.js";
import { AtomicJsonFile } from "../runner/results-file.js";
import { runStamp } from "../runner/settings.js";
import { imageRef, proxyImageTag } from "../runner/specs.js";
import { ensureUpstream, type StartedUpstream } from "../runner/upstream.js";
import { planRun, type Variant } from "../runner/variants.js";
import { UserError } from "../util/errors.js";
import { measureOnce, type CountedTarget } from "./measure.js";
import { renderInstructionsMarkdown } from "./report.js";
import {
  countedCellId,
  INSTRUCTIONS_FILE,
  INSTRUCTIONS_SCHEMA_VERSION,
  InstructionsResults,
  type CountedCell,
} from "./schema.js";
import {
  countedImageRef,
  findValgrind,
  IMAGE_ONLY_REASON,
  instructionsSkipReason,
  valgrindInImage,
  type ValgrindTools,
} from "./valgrind.js";
import { pickDefined } from "../util/objects.js";

/** `proxybench count`: the fixed sequence and its defaults. */
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
  /** native (default): the proxies' binaries here; docker: each proxy in its image with Valgrind. */
  runtime?: RuntimeKind;
  imageTag?: string;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** One cell to count: a proxy of a variant, where it runs, and its results entry. */
interface CountedJob {
  planned: PlannedCell;
  target: CountedTarget;
  cell: CountedCell;
}

interface CountedBlock {
  scenario: string;
  jobs: CountedJob[];
}

interface Ready {
  results: InstructionsResults;
  dir: string;
  runtime: Runtime;
  tools?: ValgrindTools;
  blocks: CountedBlock[];
  log: (line: string) => void;
  file: AtomicJsonFile<InstructionsResults>;
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
  const kind = planSettings.runtime;
  const tools = kind === "native" ? await findValgrind() : undefined;
  const runtime = createRuntime(kind);
  if (runtime instanceof DockerRuntime) await runtime.check();
  const found = await findTargets(plan.blocks, {
    kind,
    imageTag: request.imageTag,
    variants: request.variants,
  });
  const skipped = dedupe([
    ...plan.skipped.map((s) => ({ ...s, reason: kind === "native" ? IMAGE_ONLY_REASON : s.reason })),
    ...found.skipped,
  ]);
  for (const s of skipped) log(`skipped ${s.proxy}: ${s.reason}`);
  const dir = await resultsDir(request.out);
  const variants = request.variants;
  if (variants) log(`variants: ${variants.map((v) => `${v.name}=${v.dir}`).join(", ")}; ABBA rounds`);
  const valgrind = tools?.version ?? valgrindOfImages(found.valgrind);
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
      ...(kind === "docker" ? { runtime: kind, ...pickDefined(request, ["imageTag"]) } : {}),
      valgrind,
      ...(variants ? { variants } : {}),
    },
    environment: await captureEnvironment({ tools: { valgrind }, proxies: found.versions }),
    skipped,
    cells: [],
  };
  const blocks = found.blocks.map((b) => ({
    scenario: b.scenario,
    jobs: b.jobs.map((j) => ({ ...j, cell: newCell(j, found.versions) })),
  }));
  const file = new AtomicJsonFile<InstructionsResults>(dir, INSTRUCTIONS_FILE, (r) => {
    InstructionsResults.parse(r);
    return r;
  });
  return { results, dir, runtime, ...(tools ? { tools } : {}), blocks, log, file };
}

/** "3.22.0 (in the images)", or the versions by image when they differ. */
function valgrindOfImages(byImage: Map<string, string>): string {
  const versions = [...new Set(byImage.values())];
  if (versions.length <= 1) return `${versions[0] ?? "unknown"} (in the images)`;
  return [...byImage].map(([image, v]) => `${v} (${image})`).join(", ");
}

/** The request as the wall-clock mode's settings, for planRun (native: Valgrind runs binaries). */
function toPlanSettings(request: InstructionsRequest): Settings {
  return {
    proxies: request.proxies ?? ["nginx", "haproxy"],
    scenarios: request.scenarios ?? ["passthrough"],
    repetitions: positive("--repetitions", request.repetitions ?? DEFAULT_COUNTED_REPETITIONS),
    cpus: cpuLayout(request.cpus),
    runtime: request.runtime ?? "native",
    ...pickDefined(request, ["proxiesDirs", "scenariosDirs", "variants", "imageTag"]),
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

/** Where the cells run: the runtime, and the image tag of each variant under docker. */
interface TargetChoice {
  kind: RuntimeKind;
  imageTag: string | undefined;
  variants: Variant[] | undefined;
}

type Found = { target: CountedTarget; version: string; valgrind?: string } | { reason: string };

/** Each planned cell's binary or image, or why it cannot be counted (one look per binary or image). */
async function findTargets(
  blocks: Block[],
  choice: TargetChoice,
): Promise<{
  blocks: Array<{ scenario: string; jobs: Array<Omit<CountedJob, "cell">> }>;
  skipped: Skipped[];
  versions: Record<string, string>;
  valgrind: Map<string, string>;
}> {
  const looked = new Map<string, Found>();
  const skipped: Skipped[] = [];
  const versions: Record<string, string> = {};
  const valgrind = new Map<string, string>();
  const out = [];
  for (const block of blocks) {
    const jobs = [];
    for (const planned of block.cells) {
      const image = choice.kind === "docker" ? countedImage(planned, choice) : undefined;
      const key = image ?? planned.proxy.file;
      const found = looked.get(key) ?? (await lookFor(planned.proxy, choice.kind, image));
      looked.set(key, found);
      const shown = proxyStem(planned.proxy.manifest.name, planned.variant);
      if ("reason" in found) skipped.push({ proxy: shown, reason: found.reason });
      else {
        versions[shown] = found.version;
        if (image !== undefined && found.valgrind !== undefined) valgrind.set(image, found.valgrind);
        jobs.push({ planned, target: found.target });
      }
    }
    out.push({ scenario: block.scenario.manifest.name, jobs });
  }
  return { blocks: out, skipped, versions, valgrind };
}

/** The counted image of a cell's proxy: its image (with the variant's tag) with Valgrind. */
function countedImage(planned: PlannedCell, choice: TargetChoice): string {
  const tag = proxyImageTag({ imageTag: choice.imageTag, variants: choice.variants }, planned.variant);
  return countedImageRef(imageRef(planned.proxy.manifest.name, tag));
}

async function lookFor(proxy: LoadedProxy, kind: RuntimeKind, image: string | undefined): Promise<Found> {
  const reason = instructionsSkipReason(proxy, kind);
  if (reason !== undefined) return { reason };
  if (image !== undefined) {
    const inImage = await valgrindInImage(dockerClient(), image, proxy.manifest.name);
    if ("reason" in inImage) return inImage;
    return { target: { kind: "docker", image }, version: `image ${image}`, valgrind: inImage.version };
  }
  const found = await nativeAvailability(proxy);
  if (found.kind === "found")
    return { target: { kind: "native", binaryPath: found.path }, version: found.version };
  return { reason: found.kind === "missing" ? `binary not found (${found.fix})` : found.kind };
}

function cpuLayout(text: string | undefined): CpuLayout {
  const cores = os.availableParallelism();
  return text === undefined ? defaultCpuLayout(cores).layout : parseCpuLayout(text, cores);
}

async function resultsDir(out: string | undefined): Promise<string> {
  const dir = path.resolve(out ?? path.join("results", `${runStamp(new Date())}-instructions`));
  const existing = await readdir(dir).catch(() => [] as string[]);
  if (existing.includes(INSTRUCTIONS_FILE) || existing.includes("results.json")) {
    throw new UserError(`--out ${dir}: already holds results; choose another folder`);
  }
  await mkdir(dir, { recursive: true });
  return dir;
}

/**
 * A block's counted cells in the block lifecycle (runner/lifecycle.ts: the upstream(s), every
 * cell once per round, the order reversed every other round (ABBA) so a drift weighs alike on
 * base and head, instructions.json saved after each slot); each slot starts the proxy under
 * callgrind, counts, and stops it.
 */
async function runBlock(ready: Ready, block: CountedBlock): Promise<void> {
  const { results, dir } = ready;
  const jobs = new Map(block.jobs.map((j) => [j.planned, j]));
  await runBlockLifecycle(
    {
      cells: block.jobs.map((j) => j.planned),
      upstreams: {
        runtime: new NativeRuntime(),
        binary: await ensureUpstream(),
        cpus: results.settings.cpus.upstream,
        dir,
        logStem: block.scenario,
      },
      rounds: { count: results.settings.repetitions, order: "abba" },
      save: () => save(ready),
    },
    countedStep(ready, jobs),
  );
}

/** A counted cell of a block: its job and its upstream. */
interface CountedCellRun {
  job: CountedJob;
  upstream: StartedUpstream;
}

function countedStep(ready: Ready, jobs: Map<PlannedCell, CountedJob>): MeasurementStep<CountedCellRun> {
  const { results, dir } = ready;
  return {
    startCell: (planned, upstream) => {
      const job = jobs.get(planned)!;
      results.cells.push(job.cell);
      return Promise.resolve({ job, upstream: upstream.started });
    },
    skips: ({ job }) => job.cell.status === "failed",
    measure: async ({ job, upstream }, round) => {
      const rep = await measureOnce({
        ...jobPaths(job.cell, job.cell.repetitions.length, dir),
        proxy: job.planned.proxy,
        target: job.target,
        runtime: ready.runtime,
        scenario: job.planned.scenario.manifest,
        upstream,
        cpus: results.settings.cpus.proxy.slice(0, 1),
        dir,
        index: job.cell.repetitions.length,
        ...pick(results.settings),
        ...(ready.tools ? { tools: ready.tools } : {}),
      });
      const variant = job.planned.variant;
      addRepetition(job.cell, variant === undefined ? rep : { ...rep, round, variant }, ready.log);
    },
  };
}

function pick(s: InstructionsResults["settings"]) {
  return { requests: s.requests, warmupRequests: s.warmupRequests, connections: s.connections };
}

/** Files of a cell: `<scenario>-<proxy>[@<variant>]`. */
function cellStem(cell: CountedCell): string {
  return `${cell.scenario}-${proxyStem(cell.proxy, cell.variant)}`;
}

function jobPaths(cell: CountedCell, index: number, dir: string) {
  const stem = cellStem(cell);
  return {
    workdir: path.join(dir, "work", stem),
    logRel: `logs/${stem}.log`,
    rawRel: `raw/${stem}-rep${index + 1}.callgrind.out`,
  };
}

function newCell(job: Omit<CountedJob, "cell">, versions: Record<string, string>): CountedCell {
  const { planned, target } = job;
  const proxy = planned.proxy.manifest.name;
  const scenario = planned.scenario.manifest.name;
  const variant = planned.variant;
  const version = target.kind === "native" ? versions[proxyStem(proxy, variant)] : undefined;
  const cell: CountedCell = {
    id: countedCellId(scenario, proxy, variant),
    proxy,
    ...(variant === undefined ? {} : { variant }),
    scenario,
    status: "ok",
    reasons: [],
    ...(version === undefined ? {} : { proxyVersion: version }),
    ...(target.kind === "docker" ? { image: target.image } : {}),
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

/** instructions.json (checked against its schema, written as built) and instructions.md. */
async function save(ready: Ready): Promise<void> {
  await ready.file.save(ready.results);
  await writeFile(path.join(ready.dir, "instructions.md"), renderInstructionsMarkdown(ready.results));
}
