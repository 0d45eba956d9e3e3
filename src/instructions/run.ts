import { mkdir, readdir, rename, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { captureEnvironment } from "../environment/capture.js";
import { loadManifests, type LoadedProxy, type ManifestSet } from "../manifests/load.js";
import type { ScenarioManifest } from "../manifests/schema.js";
import { worstStatus, type CpuLayout } from "../results/schema.js";
import { defaultCpuLayout, parseCpuLayout } from "../runner/cpus.js";
import { NativeRuntime } from "../runner/native-runtime.js";
import { selectNames } from "../runner/plan.js";
import { nativeAvailability } from "../runner/proxy-binary.js";
import { buildUpstreamSpec } from "../runner/specs.js";
import { ensureUpstream, startUpstream } from "../runner/upstream.js";
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
import { findValgrind, instructionsSkipReason, type ValgrindTools } from "./valgrind.js";

/** `proxybench run --measure instructions`: the fixed sequence and its defaults. */
export const DEFAULT_REQUESTS = 1000;
export const DEFAULT_WARMUP_REQUESTS = 200;
export const DEFAULT_CONNECTIONS = 2;
export const DEFAULT_COUNTED_REPETITIONS = 5;

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
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

interface Ready {
  results: InstructionsResults;
  dir: string;
  tools: ValgrindTools;
  proxies: Array<{ proxy: LoadedProxy; binaryPath: string }>;
  scenarios: ScenarioManifest[];
  log: (line: string) => void;
}

export async function runInstructions(
  request: InstructionsRequest,
): Promise<{ exitCode: number; results: InstructionsResults; dir: string }> {
  const ready = await prepare(request);
  for (const scenario of ready.scenarios) await runScenario(ready, scenario);
  ready.results.finishedAt = new Date().toISOString();
  await save(ready);
  ready.log(`results: ${path.join(ready.dir, INSTRUCTIONS_FILE)}`);
  const allOk = ready.results.cells.every((c) => c.status === "ok");
  return { exitCode: allOk ? 0 : 1, results: ready.results, dir: ready.dir };
}

async function prepare(request: InstructionsRequest): Promise<Ready> {
  const log = request.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const manifests = await loadManifests({
    ...(request.proxiesDirs ? { proxiesDirs: request.proxiesDirs } : {}),
    ...(request.scenariosDirs ? { scenariosDirs: request.scenariosDirs } : {}),
  });
  const proxyNames = selectNames("--proxies", request.proxies ?? ["nginx", "haproxy"], manifests.proxies);
  const scenarioNames = selectNames("--scenarios", request.scenarios ?? ["passthrough"], manifests.scenarios);
  const tools = await findValgrind();
  const { proxies, skipped } = await runnable(proxyNames, manifests);
  for (const s of skipped) log(`skipped ${s.proxy}: ${s.reason}`);
  const cpus = cpuLayout(request.cpus);
  const dir = await resultsDir(request.out);
  const settings = {
    proxies: proxyNames,
    scenarios: scenarioNames,
    repetitions: positive("--repetitions", request.repetitions ?? DEFAULT_COUNTED_REPETITIONS),
    requests: positive("requests", request.requests ?? DEFAULT_REQUESTS),
    warmupRequests: request.warmupRequests ?? DEFAULT_WARMUP_REQUESTS,
    connections: positive("connections", request.connections ?? DEFAULT_CONNECTIONS),
    cpus,
    valgrind: tools.version,
  };
  const versions = Object.fromEntries(proxies.map((p) => [p.proxy.manifest.name, p.version]));
  const results: InstructionsResults = {
    schemaVersion: INSTRUCTIONS_SCHEMA_VERSION,
    measure: "instructions",
    runId: path.basename(dir),
    startedAt: new Date().toISOString(),
    settings,
    environment: await captureEnvironment({ tools: { valgrind: tools.version }, proxies: versions }),
    skipped,
    cells: [],
  };
  const scenarios = scenarioNames.map((n) => manifests.scenarios.get(n)?.manifest as ScenarioManifest);
  return { results, dir, tools, proxies, scenarios, log };
}

function positive(flag: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${flag}: expected a positive integer, got ${n}`);
  return n;
}

async function runnable(
  names: string[],
  manifests: ManifestSet,
): Promise<{
  proxies: Array<{ proxy: LoadedProxy; binaryPath: string; version: string }>;
  skipped: Array<{ proxy: string; reason: string }>;
}> {
  const proxies: Array<{ proxy: LoadedProxy; binaryPath: string; version: string }> = [];
  const skipped: Array<{ proxy: string; reason: string }> = [];
  for (const name of names) {
    const proxy = manifests.proxies.get(name) as LoadedProxy;
    const reason = instructionsSkipReason(proxy);
    if (reason !== undefined) {
      skipped.push({ proxy: name, reason });
      continue;
    }
    const found = await nativeAvailability(proxy);
    if (found.kind === "found") proxies.push({ proxy, binaryPath: found.path, version: found.version });
    else
      skipped.push({
        proxy: name,
        reason: found.kind === "missing" ? `binary not found (${found.fix})` : found.kind,
      });
  }
  return { proxies, skipped };
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

/** The upstream, then the repetitions interleaved across proxies (rep 1 of A, B, then rep 2...). */
async function runScenario(ready: Ready, scenario: ScenarioManifest): Promise<void> {
  const { results, dir } = ready;
  const upstreamLog = path.join(dir, "logs", `${scenario.name}-upstream.log`);
  await mkdir(path.dirname(upstreamLog), { recursive: true });
  const spec = buildUpstreamSpec(
    await ensureUpstream(),
    scenario,
    results.settings.cpus.upstream,
    upstreamLog,
  );
  const upstream = await startUpstream(new NativeRuntime(), spec);
  try {
    const cells = ready.proxies.map((p) => newCell(scenario.name, p.proxy.manifest.name, ready));
    results.cells.push(...cells);
    for (let index = 0; index < results.settings.repetitions; index++) {
      for (const [i, { proxy, binaryPath }] of ready.proxies.entries()) {
        const cell = cells[i] as CountedCell;
        if (cell.status === "failed") continue;
        const rep = await measureOnce({
          ...jobPaths(scenario.name, proxy.manifest.name, index, dir),
          proxy,
          binaryPath,
          scenario,
          upstream,
          cpus: results.settings.cpus.proxy.slice(0, 1),
          dir,
          index,
          ...pick(results.settings),
          tools: ready.tools,
        });
        addRepetition(cell, rep, ready.log);
        await save(ready);
      }
    }
  } finally {
    await upstream.proc.stop();
  }
}

function pick(s: InstructionsResults["settings"]) {
  return { requests: s.requests, warmupRequests: s.warmupRequests, connections: s.connections };
}

function jobPaths(scenario: string, proxy: string, index: number, dir: string) {
  return {
    workdir: path.join(dir, "work", `${scenario}-${proxy}`),
    logRel: `logs/${scenario}-${proxy}.log`,
    rawRel: `raw/${scenario}-${proxy}-rep${index + 1}.callgrind.out`,
  };
}

function newCell(scenario: string, proxy: string, ready: Ready): CountedCell {
  const version = ready.results.environment?.proxies[proxy];
  return {
    id: countedCellId(scenario, proxy),
    proxy,
    scenario,
    status: "ok",
    reasons: [],
    ...(version === undefined ? {} : { proxyVersion: version }),
    repetitions: [],
    log: `logs/${scenario}-${proxy}.log`,
  };
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
