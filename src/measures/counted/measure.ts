import { mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { probe } from "../../engines/probe.js";
import type { PlannedCell } from "../../runner/plan.js";
import { logTail } from "../../util/logs.js";
import { waitReady } from "../../runner/ready.js";
import type { ProcessSpec, RunningProcess, Runtime } from "../../runner/runtime.js";
import { writeSectionConfigs } from "../../runner/proxy-configs.js";
import type { ProxyContext } from "../../runner/specs.js";
import type { StartedUpstream } from "../../runner/upstream.js";
import { freePort } from "../../util/ports.js";
import { cycleEstimate, eventCost, parseCallgrind } from "./callgrind.js";
import { KeepAliveClient } from "./client.js";
import type { CountedCell, CountedRepetition, InstructionsResults } from "./schema.js";
import {
  buildCallgrindSpec,
  buildContainerCallgrindSpec,
  containerControl,
  hostControl,
  type CallgrindControl,
  type ValgrindTools,
} from "./valgrind.js";

/**
 * One counted repetition of one proxy: start it under callgrind (natively, or in its image with
 * Valgrind under --runtime docker), wait until it answers, probe
 * it, send the warm-up, switch instrumentation on, send the measured requests, switch it off,
 * dump, stop, and read the dump. Valgrind slows start-up tenfold: the ready timeout is longer.
 */

const VALGRIND_READY_FACTOR = 5;

/** Where the proxy runs: its binary on this machine, or its counted image (countedImageRef). */
export type CountedTarget = { kind: "native"; binaryPath: string } | { kind: "docker"; image: string };

/** One cell to count: where its proxy runs, its results entry, and the stem of its files. */
export interface CountedJob {
  planned: PlannedCell;
  target: CountedTarget;
  cell: CountedCell & { log: string };
  /** `<scenario>-<proxy>[@<variant>]`: its folder in work/ and its dumps in raw/. */
  stem: string;
}

/** What every repetition of a counted run shares. */
export interface CountingRun {
  runtime: Runtime;
  /** The run's cores (the proxy's first) and what each repetition sends. */
  settings: Pick<InstructionsResults["settings"], "cpus" | "requests" | "warmupRequests" | "connections">;
  /** The results directory. */
  dir: string;
  /** Valgrind on this machine: needed for a native target. */
  tools?: ValgrindTools;
}

/** One repetition of a job: what the run shares, the upstream of the job's block, and its index. */
export interface MeasureJob extends CountedJob, CountingRun {
  upstream: Pick<StartedUpstream, "host" | "port" | "grpcPort">;
  index: number;
}

type Outcome = Omit<CountedRepetition, "index" | "startedAt">;

function failed(reasons: string[], extra: Partial<Outcome> = {}): Outcome {
  return {
    status: "failed",
    reasons,
    requests: 0,
    failures: 0,
    statusCodes: {},
    events: {},
    wallS: 0,
    ...extra,
  };
}

export async function measureOnce(job: MeasureJob): Promise<CountedRepetition> {
  const startedAt = new Date().toISOString();
  const started = await startUnderCallgrind(job);
  if (started.reason !== undefined) return { index: job.index, startedAt, ...failed([started.reason]) };
  try {
    const outcome = await drive(job, started);
    return { index: job.index, startedAt, ...outcome };
  } finally {
    await started.proc.stop();
    // What valgrind writes at exit holds nothing counted (instrumentation is off by then).
    await rm(started.outFile, { force: true });
  }
}

/** The proxy started under callgrind and answering, and how its instrumentation is switched. */
type Started = Exclude<Awaited<ReturnType<typeof startUnderCallgrind>>, { reason: string }>;

async function startUnderCallgrind(job: MeasureJob) {
  const name = job.planned.proxy.manifest.name;
  const workdir = path.join(job.dir, "work", job.stem);
  await mkdir(workdir, { recursive: true });
  const logFile = path.join(job.dir, job.cell.log);
  const ctx: ProxyContext = {
    listenHost: "127.0.0.1",
    listenPort: await freePort(),
    upstreamHost: job.upstream.host,
    upstreamPort: job.upstream.port,
    upstreamGrpcPort: job.upstream.grpcPort,
    cpus: job.settings.cpus.proxy.slice(0, 1),
    workdir,
    logFile,
  };
  const outFile = path.join(workdir, `callgrind.rep${job.index}.out`);
  let proc: RunningProcess;
  try {
    proc = await job.runtime.start(await callgrindSpec(job, ctx, outFile));
  } catch (err) {
    return { reason: `${name} could not start under valgrind: ${(err as Error).message}` };
  }
  const baseUrl = `http://${ctx.listenHost}:${ctx.listenPort}`;
  const { ready } = job.planned.proxy.manifest;
  const notReady = await waitReady(`${baseUrl}${ready.path}`, ready.timeoutS * VALGRIND_READY_FACTOR, proc);
  const control = notReady === undefined ? controlOf(job, proc) : { reason: notReady };
  if ("reason" in control) {
    await proc.stop();
    return {
      reason: `${name} under valgrind did not come up: ${control.reason}; log (${job.cell.log}): ${await logTail(logFile, 5)}`,
    };
  }
  return { proc, baseUrl, outFile, control: control.control };
}

/** The proxy's process under callgrind, its configs written: natively, or in its counted image. */
async function callgrindSpec(job: MeasureJob, ctx: ProxyContext, outFile: string): Promise<ProcessSpec> {
  const { target } = job;
  const { proxy } = job.planned;
  if (target.kind === "docker") {
    const configs = await writeSectionConfigs(proxy, "image", ctx);
    return buildContainerCallgrindSpec(proxy, ctx, configs, target.image, outFile);
  }
  await writeSectionConfigs(proxy, "native", ctx);
  if (job.tools === undefined) throw new Error("valgrind on this machine was not looked for");
  return buildCallgrindSpec(proxy, ctx, target.binaryPath, job.tools, outFile);
}

/** How the started proxy's instrumentation is switched: callgrind_control here, or in its container. */
function controlOf(
  job: MeasureJob,
  proc: RunningProcess,
): { control: CallgrindControl } | { reason: string } {
  if (job.target.kind === "docker") return { control: containerControl(proc) };
  if (proc.pid === undefined || job.tools === undefined)
    return { reason: "the proxy's process id is unknown" };
  return { control: hostControl(job.tools, proc.pid) };
}

async function drive(job: MeasureJob, started: Started): Promise<Outcome> {
  const { baseUrl, outFile, control } = started;
  const { manifest: scenario } = job.planned.scenario;
  const checked = await probe(baseUrl, scenario);
  if (!checked.ok) {
    return { ...failed(checked.reasons, { statusCodes: checked.statusCodes }), status: "invalid" };
  }
  const { requests: count, warmupRequests, connections } = job.settings;
  const client = new KeepAliveClient(new URL(baseUrl), scenario, connections);
  try {
    await client.send(warmupRequests);
    await control(["-i", "on"]);
    const t0 = process.hrtime.bigint();
    const sent = await client.send(count);
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    await control(["-i", "off"]);
    await control(["-d"]);
    const { statusCodes, failures, requests } = sent;
    const base = { requests, failures, statusCodes, wallS };
    if (failures > 0) return { ...base, status: "invalid", reasons: sent.reasons, events: {} };
    return { ...base, ...(await readDump(job, outFile, requests)) };
  } catch (err) {
    return failed([(err as Error).message]);
  } finally {
    client.close();
  }
}

/** The dump `callgrind_control -d` wrote (`<outFile>.1`), moved into raw/ and read. */
async function readDump(
  job: MeasureJob,
  outFile: string,
  requests: number,
): Promise<Omit<Outcome, "requests" | "failures" | "statusCodes" | "wallS">> {
  const dumps = (await readdir(path.dirname(outFile))).filter((f) =>
    f.startsWith(`${path.basename(outFile)}.`),
  );
  if (dumps.length !== 1) {
    return {
      status: "failed",
      reasons: [`expected one callgrind dump of ${outFile}, found ${dumps.length}`],
      events: {},
    };
  }
  const rawRel = `raw/${job.stem}-rep${job.index + 1}.callgrind.out`;
  await mkdir(path.dirname(path.join(job.dir, rawRel)), { recursive: true });
  await rename(path.join(path.dirname(outFile), dumps[0] as string), path.join(job.dir, rawRel));
  const profile = parseCallgrind(await readFile(path.join(job.dir, rawRel), "utf8"));
  const events = Object.fromEntries(profile.events.map((e, i) => [e, profile.totals[i] ?? 0]));
  const cycles = cycleEstimate(profile.events, profile.totals);
  return {
    status: "ok",
    reasons: [],
    events,
    instructionsPerRequest: eventCost(profile.events, profile.totals, "Ir") / requests,
    ...(cycles === undefined ? {} : { cyclesPerRequest: cycles / requests }),
    callgrindFile: rawRel,
  };
}
