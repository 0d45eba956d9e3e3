import path from "node:path";
import { captureEnvironment } from "../../environment/capture.js";
import type { LoadedProxy } from "../../manifests/load.js";
import { RESULTS_FILE } from "../../results/io.js";
import type { Settings } from "../../results/schema.js";
import { Interrupted, updateCell } from "../../runner/cell.js";
import { formatCpuLayout } from "../../runner/cpus.js";
import { DockerRuntime } from "../../runner/docker-runtime.js";
import { createRuntime, dockerClient, type RuntimeKind } from "../../runner/runtime-factory.js";
import {
  PLAN_IMAGE_ONLY_REASON,
  proxyStem,
  type Block,
  type Plan,
  type PlannedCell,
} from "../../runner/plan.js";
import { refuseUsedOut } from "../../runner/preflight.js";
import { nativeAvailability } from "../../runner/proxy-binary.js";
import { AtomicFile, AtomicJsonFile, savedDocument } from "../../runner/results-file.js";
import {
  type BlockRun,
  dryRunMeasurement,
  type MeasurementKind,
  type Out,
  type ReadyMeasurement,
  runMeasurement,
  type RunSession,
} from "../../runner/measurement.js";
import { coreCount, defaultOutDir, resolveSettings, type RunRequest } from "../../runner/settings.js";
import { imageRef, proxyImageTag } from "../../runner/specs.js";
import { planRun } from "../../runner/variants.js";
import { UserError } from "../../util/errors.js";
import {
  measureOnce,
  type CountedJob,
  type CountedTarget,
  type CountingRun,
  type MeasureJob,
} from "./measure.js";
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
} from "./valgrind.js";

/** `proxybench count`: the fixed sequence and its defaults. */
const DEFAULT_REQUESTS = 1000;
const DEFAULT_WARMUP_REQUESTS = 200;
const DEFAULT_CONNECTIONS = 2;
const DEFAULT_COUNTED_REPETITIONS = 5;

/** What `proxybench count` was asked (the flags it shares with `run`), and the sequence's sizes. */
export type InstructionsRequest = RunRequest &
  Partial<Pick<InstructionsResults["settings"], "requests" | "warmupRequests" | "connections">> & {
    /** Progress lines (default: stderr). */
    log?: (line: string) => void;
  };

type CountedOutcome = { exitCode: number; results: InstructionsResults; dir: string };

export function runInstructions(request: InstructionsRequest): Promise<CountedOutcome> {
  return runMeasurement(counted, request);
}

/** `proxybench count --dry-run`: the counted run planned and checked as it would be, printed; nothing started. */
export function dryRunInstructions(request: InstructionsRequest, out: Out = process.stdout): Promise<void> {
  return dryRunMeasurement(counted, request, out);
}

/** The counted measurement: a block's step counts each cell under callgrind. */
const counted: MeasurementKind<InstructionsRequest, PlannedCount, ReadyCount, CountedOutcome> = {
  plan: planCount,
  describe: describeCount,
  prepare,
  finish: ({ results, file, log, dir }) => {
    log(`results: ${file.file}`);
    return { exitCode: results.cells.every((c) => c.status === "ok") ? 0 : 1, results, dir };
  },
};

/** A counted run made ready: its results document, and what each of its repetitions shares. */
interface ReadyCount extends ReadyMeasurement, CountingRun {
  results: InstructionsResults;
  jobs: Map<PlannedCell, CountedJob>;
  log: (line: string) => void;
  file: AtomicJsonFile<InstructionsResults>;
}

/** The counted run's settings, folder, plan and what a repetition sends, before anything is looked for. */
type PlannedCount = Awaited<ReturnType<typeof planCount>>;

/**
 * The settings and plan as the wall-clock run makes them (resolveSettings with the counted
 * run's defaults; planRun: the variants checked, each variant's manifest folders, the plans
 * merged by scenario), the folder refused when it holds results.
 */
async function planCount(request: InstructionsRequest) {
  const log = request.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { settings } = resolveSettings(
    {
      ...request,
      proxies: request.proxies ?? ["nginx", "haproxy"],
      scenarios: request.scenarios ?? ["passthrough"],
      repetitions: positive("--repetitions", request.repetitions ?? DEFAULT_COUNTED_REPETITIONS),
      roundOrder: "abba", // counts do not drift with a disturbance; abba, as docs/instructions.md says
    },
    coreCount(),
  );
  const dir = path.resolve(request.out ?? `${defaultOutDir(new Date())}-instructions`);
  await refuseUsedOut(dir, [INSTRUCTIONS_FILE, RESULTS_FILE], "choose another folder");
  const plan = withoutUnsentScenarios(await planRun(settings));
  // What each repetition sends.
  const requests = {
    requests: positive("requests", request.requests ?? DEFAULT_REQUESTS),
    warmupRequests: request.warmupRequests ?? DEFAULT_WARMUP_REQUESTS,
    connections: positive("connections", request.connections ?? DEFAULT_CONNECTIONS),
  };
  return { settings, dir, plan, log, requests };
}

/**
 * The plan of a counted run (pure): its blocks and the proxies each counts, the requests each
 * repetition sends, and what is skipped and why (the proxy's binary or image is looked for by
 * the run, not here). No time estimate: how slowly a proxy runs under callgrind is its own.
 */
function describeCount({ settings, plan, requests }: PlannedCount): string {
  const reason = (c: PlannedCell) => instructionsSkipReason(c.proxy, settings.runtime);
  const stem = (c: PlannedCell) => proxyStem(c.proxy.manifest.name, c.variant);
  const blocks = plan.blocks.map((b) => ({ b, cells: b.cells.filter((c) => reason(c) === undefined) }));
  const skippedCells = plan.blocks.flatMap((b) => b.cells.filter((c) => reason(c) !== undefined));
  const skipped = skippedOf(
    plan,
    settings.runtime,
    skippedCells.map((c) => ({ proxy: stem(c), reason: reason(c)! })),
  );
  const where = settings.runtime === "docker" ? "each proxy in its image" : "natively";
  const cells = blocks.reduce((n, { cells }) => n + cells.length, 0);
  return [
    `plan: ${plan.blocks.length} block(s), ${cells} cell(s), ${settings.repetitions} repetition(s) each of ` +
      `${requests.requests} requests after ${requests.warmupRequests}, over ${requests.connections} ` +
      `connections; counted under callgrind, ${where}; cores ${formatCpuLayout(settings.cpus)}`,
    ...blocks.map(({ b, cells }) => `  ${b.scenario.manifest.name}: ${cells.map(stem).join(", ") || "none"}`),
    ...skipped.map((s) => `  skipped ${s.proxy}: ${s.reason}`),
    "",
  ].join("\n");
}

/** The plan's skipped proxies, named as a counted run names them, then the cells', each proxy and reason once. */
function skippedOf(plan: Plan, runtime: RuntimeKind, cells: Skipped[]): Skipped[] {
  const all = plan.skipped.map((s) => ({
    ...s,
    reason: runtime === "native" && s.reason === PLAN_IMAGE_ONLY_REASON ? IMAGE_ONLY_REASON : s.reason,
  }));
  return [...new Map([...all, ...cells].map((s) => [`${s.proxy}\n${s.reason}`, s])).values()];
}

/** Each cell's binary or image found under Valgrind, the skipped ones said, the results document. */
async function prepare({ settings, dir, plan, log, requests }: PlannedCount): Promise<ReadyCount> {
  const kind = settings.runtime;
  const tools = kind === "native" ? await findValgrind() : undefined;
  const runtime = createRuntime(kind);
  if (runtime instanceof DockerRuntime) await runtime.check();
  const found = await findTargets(plan, settings);
  const skipped = skippedOf(plan, kind, found.skipped);
  for (const s of skipped) log(`skipped ${s.proxy}: ${s.reason}`);
  const { variants, imageTag } = settings;
  if (variants) log(`variants: ${variants.map((v) => `${v.name}=${v.dir}`).join(", ")}; ABBA rounds`);
  const valgrind = tools?.version ?? valgrindOfImages(found.valgrind);
  const results: InstructionsResults = {
    schemaVersion: INSTRUCTIONS_SCHEMA_VERSION,
    measure: "instructions",
    runId: path.basename(dir),
    startedAt: new Date().toISOString(),
    settings: {
      proxies: settings.proxies,
      scenarios: settings.scenarios,
      repetitions: settings.repetitions,
      ...requests,
      cpus: settings.cpus,
      ...(kind === "docker" ? { runtime: kind, ...(imageTag === undefined ? {} : { imageTag }) } : {}),
      valgrind,
      ...(variants ? { variants } : {}),
    },
    environment: await captureEnvironment({ tools: { valgrind }, proxies: found.versions }),
    skipped,
    cells: [],
  };
  const file = new AtomicJsonFile<InstructionsResults>(dir, INSTRUCTIONS_FILE, (r) => {
    InstructionsResults.parse(r);
    return r;
  });
  const markdown = new AtomicFile(dir, "instructions.md", renderInstructionsMarkdown);
  const ready: ReadyCount = {
    results,
    settings: results.settings,
    dir,
    runtime,
    ...(tools ? { tools } : {}),
    jobs: found.jobs,
    log,
    file,
    session: {
      documents: [savedDocument(file, results), savedDocument(markdown, results)],
      interrupted: () => keepCounted(results, file.file),
      say: log,
    },
    blockRun: (block, session) => countedBlock(ready, block, session),
    settle: () => {
      results.finishedAt = new Date().toISOString();
    },
  };
  return ready;
}

/**
 * The plan without the scenarios the counted client cannot send (it speaks HTTP/1.1 without
 * TLS, client.ts): each of their proxies skipped, with the reason.
 */
function withoutUnsentScenarios(plan: Plan): Plan {
  const sent = plan.blocks.filter((b) => b.scenario.manifest.protocol === "http1");
  const unsent = plan.blocks.filter((b) => !sent.includes(b));
  const skipped = unsent.flatMap((b) => {
    const { name, protocol } = b.scenario.manifest;
    const reason = `scenario '${name}' speaks ${protocol}; count sends HTTP/1.1 without TLS`;
    return [...new Set(b.cells.map((c) => c.proxy.manifest.name))].map((proxy) => ({
      proxy,
      scenario: name,
      reason,
    }));
  });
  return { ...plan, blocks: sent, skipped: [...plan.skipped, ...skipped] };
}

/** "3.22.0 (in the images)", or the versions by image when they differ. */
function valgrindOfImages(byImage: Map<string, string>): string {
  const versions = [...new Set(byImage.values())];
  if (versions.length <= 1) return `${versions[0] ?? "unknown"} (in the images)`;
  return [...byImage].map(([image, v]) => `${v} (${image})`).join(", ");
}

function positive(flag: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${flag}: expected a positive integer, got ${n}`);
  return n;
}

type Skipped = InstructionsResults["skipped"][number];

type Found = { target: CountedTarget; version: string; valgrind?: string } | { reason: string };

/**
 * Each planned cell's binary or image (one look per binary or image): the cells that can be
 * counted, why the others cannot, the versions found, and Valgrind's version by counted image.
 */
async function findTargets(plan: Plan, settings: Settings) {
  const looked = new Map<string, Found>();
  const jobs = new Map<PlannedCell, CountedJob>();
  const skipped: Skipped[] = [];
  const versions: Record<string, string> = {};
  const valgrind = new Map<string, string>();
  for (const planned of plan.blocks.flatMap((b) => b.cells)) {
    const { name } = planned.proxy.manifest;
    const image =
      settings.runtime === "docker"
        ? countedImageRef(imageRef(name, proxyImageTag(settings, planned.variant)))
        : undefined;
    const key = image ?? planned.proxy.file;
    const found = looked.get(key) ?? (await lookFor(planned.proxy, settings.runtime, image));
    looked.set(key, found);
    const shown = proxyStem(name, planned.variant);
    if ("reason" in found) skipped.push({ proxy: shown, reason: found.reason });
    else {
      versions[shown] = found.version;
      if (image !== undefined && found.valgrind !== undefined) valgrind.set(image, found.valgrind);
      jobs.set(planned, newJob(planned, found));
    }
  }
  return { jobs, skipped, versions, valgrind };
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

/** A cell's job: its files are `<scenario>-<proxy>[@<variant>]`. */
function newJob(
  planned: PlannedCell,
  { target, version }: { target: CountedTarget; version: string },
): CountedJob {
  const proxy = planned.proxy.manifest.name;
  const scenario = planned.scenario.manifest.name;
  const { variant } = planned;
  const stem = `${scenario}-${proxyStem(proxy, variant)}`;
  const cell = {
    id: countedCellId(scenario, proxy, variant),
    proxy,
    ...(variant === undefined ? {} : { variant }),
    scenario,
    status: "ok" as const,
    reasons: [],
    ...(target.kind === "native" ? { proxyVersion: version } : { image: target.image }),
    repetitions: [],
    log: `logs/${stem}.log`,
  };
  return { planned, target, cell, stem };
}

/**
 * A block's counted cells in the block lifecycle (runner/lifecycle.ts: the upstream(s), every
 * cell once per round, the order reversed every other round (ABBA) so a drift weighs alike on
 * base and head, instructions.json saved after each slot); each slot starts the proxy under
 * callgrind, counts, and stops it. A cell of the block holds its job and its block's
 * upstream; each repetition adds what the run shares (ready) and its index.
 */
function countedBlock(
  ready: ReadyCount,
  block: Block,
  session: RunSession,
): BlockRun<CountedJob & Pick<MeasureJob, "upstream">> {
  const { results, dir } = ready;
  return {
    lifecycle: {
      cells: block.cells.filter((planned) => ready.jobs.has(planned)),
      logStem: block.scenario.manifest.name,
      ctx: { settings: results.settings, dir, ...session },
    },
    step: {
      startCell: (planned, upstream) => {
        const job = ready.jobs.get(planned)!;
        results.cells.push(job.cell);
        return Promise.resolve({ ...job, upstream: upstream.started });
      },
      skips: ({ cell }) => cell.status === "failed",
      measure: async (run, round) => {
        const rep = await measureOnce({ ...ready, ...run, index: run.cell.repetitions.length });
        // A repetition whose processes a signal stopped is not kept.
        if (session.isInterrupted()) throw new Interrupted();
        const { variant } = run.planned;
        addRepetition(run.cell, variant === undefined ? rep : { ...rep, round, variant }, ready.log);
      },
    },
  };
}

function addRepetition(
  cell: CountedCell,
  rep: CountedCell["repetitions"][number],
  log: (l: string) => void,
): void {
  cell.repetitions.push(rep);
  updateCell(cell);
  const figure =
    rep.instructionsPerRequest === undefined
      ? rep.reasons.join("; ")
      : `${rep.instructionsPerRequest.toFixed(1)} instructions/request in ${rep.wallS.toFixed(1)} s`;
  log(`${cell.id} rep ${rep.index + 1}: ${rep.status}, ${figure}`);
}

/** On SIGINT/SIGTERM: the repetitions counted so far kept, a cell not yet counted dropped. */
function keepCounted(results: InstructionsResults, file: string): string {
  results.cells = results.cells.filter((c) => c.repetitions.length > 0);
  const counted = results.cells.reduce((n, c) => n + c.repetitions.length, 0);
  return `interrupted: ${counted} counted repetition(s) of ${results.cells.length} cell(s) kept in ${file}`;
}
