import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { arrivalVus, littleLawVus } from "../engines/load.js";
import { expandRequests } from "../engines/requests.js";
import type { ProbeResult } from "../engines/types.js";
import { isGrpc, urlScheme, usesTls } from "../results/protocols.js";
import type { Cell, Protocol } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { freePort } from "../util/ports.js";
import {
  cellName,
  cellStem,
  checkAlive,
  finishCell,
  Interrupted,
  LOG_TAIL_LINES,
  oneLine,
  stopCell,
  updateCell,
  type ActiveCell,
  type BlockContext,
} from "./cell.js";
import { logTail, tailOf } from "../util/logs.js";
import { plannedSeconds, type Block, type PlannedCell } from "./plan.js";
import { waitReady } from "./ready.js";
import { describeRepetition, measure, measureRepetition } from "./repetition.js";
import { roundOrder } from "./rounds.js";
import { sidecarGone, startSidecar } from "./sidecar.js";
import {
  buildDockerProxySpec,
  buildNativeProxySpec,
  buildUpstreamSpec,
  imageRef,
  proxyImageTag,
  renderConfigs,
  sectionConfigs,
  type ProxyContext,
} from "./specs.js";
import { probeHandshake, type TlsFiles } from "./tls.js";
import { startUpstream, type StartedUpstream } from "./upstream.js";

/**
 * One block (a scenario and load level): the upstream (one per distinct upstream setting of
 * the variants' scenarios), every cell's proxy up and probed, warm-ups, then the measured
 * repetitions in rounds, written to results.json after each one.
 */

interface BlockUpstream {
  started: StartedUpstream;
  logRel: string;
}

/** One upstream per distinct upstream setting among the block's cells. */
async function startUpstreams(
  block: Block,
  cells: PlannedCell[],
  ctx: BlockContext,
): Promise<Map<string, BlockUpstream>> {
  const out = new Map<string, BlockUpstream>();
  for (const planned of cells) {
    const key = upstreamKey(planned);
    if (out.has(key)) continue;
    const logRel = `logs/${block.key}-upstream${out.size === 0 ? "" : `-${out.size + 1}`}.log`;
    const started = await startUpstream(
      ctx.upstreamRuntime,
      buildUpstreamSpec(
        ctx.upstreamBinary,
        planned.scenario.manifest,
        ctx.settings.cpus.upstream,
        path.join(ctx.dir, logRel),
        ctx.tls,
      ),
    );
    out.set(key, { started, logRel });
    const notReady = await waitReady(
      `http://${started.host}:${started.port}/health`,
      10,
      started.proc,
      ctx.signal,
    );
    if (notReady) {
      throw new UserError(
        `the upstream server is not answering: ${notReady}\n${await logTail(path.join(ctx.dir, logRel))}`,
        1,
      );
    }
  }
  return out;
}

function upstreamKey(planned: PlannedCell): string {
  return JSON.stringify(planned.scenario.manifest.upstream);
}

/** Probes a started cell; a wrong answer stops it with the reasons. */
async function probeCell(a: ActiveCell, ctx: BlockContext): Promise<void> {
  const protocol = a.planned.scenario.manifest.protocol;
  const probe = await ctx.deps.engines
    .probe(a.baseUrl, a.planned.scenario.manifest, usesTls(protocol) ? ctx.tls?.caPem : undefined)
    .catch((err: unknown): ProbeResult => ({
      ok: false,
      reasons: [`could not send the scenario's requests (${(err as Error).message})`],
      statusCodes: {},
    }));
  if (probe.ok) return;
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

export async function runBlock(block: Block, cells: PlannedCell[], ctx: BlockContext): Promise<void> {
  const { settings, progress } = ctx;
  const reps = settings.repetitions;
  const check = () => {
    if (ctx.isInterrupted()) throw new Interrupted();
  };
  let upstreams = new Map<string, BlockUpstream>();
  const active: ActiveCell[] = [];
  const perCellS = plannedSeconds(block, reps, 1);
  try {
    upstreams = await startUpstreams(block, cells, ctx);
    // Bring every proxy up and check it answers correctly before any load.
    for (const planned of cells) {
      check();
      const upstream = upstreams.get(upstreamKey(planned))!;
      const a = await startCell(planned, block, upstream.started, upstream.logRel, ctx);
      ctx.results.cells.push(a.cell);
      if (!a.stopped) {
        progress.step(`${block.key} ${cellName(a)}`, -1, reps);
        await probeCell(a, ctx);
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
    await warmUp(active, block, ctx, perCellS);
    await measureRounds(active, block, [...upstreams.values()], ctx);
    for (const a of active) if (a.cell.finishedAt === undefined) finishCell(a);
    await ctx.save();
  } catch (err) {
    if (err instanceof Interrupted) return;
    throw err;
  } finally {
    for (const a of active) await stopCell(a);
    for (const u of upstreams.values()) await u.started.proc.stop();
  }
}

/** The discarded warm-up of every cell. */
async function warmUp(
  active: ActiveCell[],
  block: Block,
  ctx: BlockContext,
  perCellS: number,
): Promise<void> {
  if (block.load.warmupS <= 0) return;
  for (const a of active) {
    if (ctx.isInterrupted()) throw new Interrupted();
    ctx.progress.step(`${block.key} ${cellName(a)}`, 0, ctx.settings.repetitions);
    const { m } = await measure(
      a,
      block,
      block.load.warmupS,
      `${block.key}-${cellStem(a)}-${block.engine}-warmup`,
      ctx,
    );
    sizeVuPool(a, m.latencyMs.p99);
    ctx.progress.advance(block.load.warmupS);
    await checkAlive(a, "the warm-up", ctx, perCellS - block.load.warmupS);
  }
}

/** An arrival-rate load's VU pool sized from the warm-up's latency (recorded on the cell). */
function sizeVuPool(a: ActiveCell, p99Ms: number): void {
  const load = a.planned.load;
  // k6's VUs and vegeta's workers: a pool fixed before the run
  if (load.model !== "constant-arrival-rate" || !["k6", "vegeta"].includes(a.planned.engine)) return;
  const vus = littleLawVus(load, p99Ms, expandRequests(a.planned.scenario.manifest).length);
  if (vus === arrivalVus(load)) return;
  a.planned = { ...a.planned, load: { ...load, vus } };
  a.cell.loadgenVus = vus;
}

/** The measured repetitions, in rounds, in the recorded order. */
async function measureRounds(
  active: ActiveCell[],
  block: Block,
  upstreams: BlockUpstream[],
  ctx: BlockContext,
): Promise<void> {
  const { settings, progress } = ctx;
  const reps = settings.repetitions;
  for (const { cell: a, round } of roundOrder(active, reps, settings.roundOrder, settings.seed)) {
    if (a.stopped) continue;
    if (ctx.isInterrupted()) throw new Interrupted();
    progress.step(`${block.key} ${cellName(a)}`, round + 1, reps);
    const repetition = await measureRepetition(a, block, round, ctx);
    progress.advance(block.load.durationS);
    const died = await checkAlive(
      a,
      `repetition ${round + 1}`,
      ctx,
      (reps - round - 1) * block.load.durationS,
    );
    if (died) {
      repetition.status = "failed";
      repetition.reasons.push(died);
    }
    await checkSidecar(a, repetition, round, ctx, (reps - round - 1) * block.load.durationS);
    const gone = upstreams.find((u) => !u.started.proc.alive());
    if (gone) {
      const reason = `the upstream server exited during repetition ${round + 1} (log: ${gone.logRel})`;
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
    if (round + 1 === reps || a.stopped) finishCell(a);
    progress.line(describeRepetition(a.cell.id, round, reps, repetition));
    await ctx.save();
  }
}

/** A sidecar that died makes the repetition invalid (its responses were not the proxy's work) and stops the cell. */
async function checkSidecar(
  a: ActiveCell,
  repetition: { status: Cell["status"]; reasons: string[] },
  round: number,
  ctx: BlockContext,
  remainingS: number,
): Promise<void> {
  if (a.stopped) return;
  const gone = await sidecarGone(a, `repetition ${round + 1}`);
  if (!gone) return;
  if (repetition.status !== "failed") repetition.status = "invalid";
  repetition.reasons.push(gone);
  await stopCell(a);
  ctx.progress.drop(remainingS);
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
    ...(planned.variant !== undefined ? { variant: planned.variant } : {}),
    upstream: {
      latencyMs: planned.scenario.manifest.upstream.latencyMs,
      maxRps: planned.scenario.manifest.upstream.maxRps,
    },
    proxy: name,
    scenario: planned.scenario.manifest.name,
    engine: planned.engine,
    ...(planned.scenario.manifest.protocol === "http1"
      ? {}
      : { protocol: planned.scenario.manifest.protocol }),
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
  const protocol = planned.scenario.manifest.protocol;
  if (m.kind === "direct") {
    a.baseUrl = directUrl(upstream, protocol);
    const problem = await checkTls(a, upstream.host, Number(new URL(a.baseUrl).port), ctx);
    if (problem !== undefined) a.problems.push({ status: "failed", reason: problem });
    return a;
  }
  const stem = planned.variant === undefined ? name : `${name}@${planned.variant}`;
  const logRel = `logs/${block.key}-${stem}.log`;
  const workdir = path.join(ctx.dir, "work", `${block.key}-${stem}`);
  await mkdir(workdir, { recursive: true });
  cell.logs.unshift(logRel);
  const logFile = path.join(ctx.dir, logRel);
  a.logFile = logFile;
  const section = ctx.runtime.kind === "docker" ? "image" : "native";
  const templates: Record<string, string> = {};
  for (const c of sectionConfigs(planned.proxy, section, protocol)) {
    templates[c.template] = await readFile(path.join(planned.proxy.dir, c.template), "utf8");
  }
  const base = {
    listenHost: "127.0.0.1",
    upstreamHost: upstream.host,
    upstreamPort: upstream.port,
    upstreamGrpcPort: upstream.grpcPort,
    ...(upstream.grpcsPort === undefined ? {} : { upstreamGrpcsPort: upstream.grpcsPort }),
    ...(ctx.tls === undefined ? {} : { tls: await certificatesFor(ctx.tls, workdir, section) }),
  };
  const shared = { ...base, cpus: ctx.settings.cpus.proxy, workdir, logFile };
  const sidecar = await startSidecar(a, ctx, shared, `${block.key}-${stem}`);
  if (sidecar.problem !== undefined) {
    a.problems.push({ status: "failed", reason: sidecar.problem });
    await stopCell(a);
    return a;
  }
  // The port is free when chosen but another process may take it before the proxy binds it:
  // one more try on a new port when the proxy says so.
  for (let attempt = 1; ; attempt++) {
    const pctx: ProxyContext = {
      ...shared,
      listenPort: await freePort(),
      ...(sidecar.port === undefined ? {} : { sidecarPort: sidecar.port }),
    };
    a.baseUrl = `${urlScheme(protocol)}://${pctx.listenHost}:${pctx.listenPort}`;
    const configs = renderConfigs(planned.proxy, section, pctx, templates, protocol);
    for (const c of configs) {
      await mkdir(path.dirname(c.output), { recursive: true });
      await writeFile(c.output, c.content);
    }
    const spec =
      section === "image"
        ? buildDockerProxySpec(
            planned.proxy,
            pctx,
            configs,
            imageRef(name, proxyImageTag(ctx.settings, planned.variant)),
          )
        : buildNativeProxySpec(planned.proxy, pctx, binary?.path ?? m.native?.binary ?? name);
    const logOffset = await fileSize(logFile);
    try {
      a.proc = await ctx.runtime.start(spec);
    } catch (err) {
      a.problems.push({ status: "failed", reason: `${name} could not start: ${(err as Error).message}` });
      await stopCell(a); // its sidecar too
      return a;
    }
    const readyUrl = isGrpc(protocol) ? a.baseUrl : `${a.baseUrl}${m.ready.path}`;
    const ca = usesTls(protocol) ? ctx.tls?.caPem : undefined;
    const notReady = await waitReady(readyUrl, m.ready.timeoutS, a.proc, ctx.signal, protocol, ca);
    // Over TLS, a handshake (ready or not) records what it settled on, or names the certificate.
    const tlsProblem = await checkTls(a, pctx.listenHost, pctx.listenPort, ctx);
    if (tlsProblem !== undefined && (!notReady || notReady.startsWith("TLS"))) {
      await stopCell(a);
      a.problems.push({ status: "failed", reason: tlsProblem });
      return a;
    }
    if (!notReady) return a;
    if (ctx.isInterrupted()) throw new Interrupted();
    await a.proc?.stop(); // the sidecar stays up for the next attempt
    const tail = tailOf(await readFrom(logFile, logOffset), LOG_TAIL_LINES);
    if (attempt === 1 && PORT_IN_USE.test(tail)) continue;
    await stopCell(a);
    a.problems.push({
      status: "failed",
      reason: `${name} did not come up: ${notReady}; ${tail ? `log (${logRel}): ${oneLine(tail)}` : `empty log ${logRel}`}`,
    });
    return a;
  }
}

/**
 * The run's certificates where the proxy can read them: natively in the run's folder; in a
 * container, copies in its instance folder (the one folder it has mounted, at the same path).
 */
async function certificatesFor(
  tls: TlsFiles,
  workdir: string,
  section: "native" | "image",
): Promise<TlsFiles> {
  if (section === "native") return tls;
  const dir = path.join(workdir, "tls");
  await mkdir(dir, { recursive: true });
  const copy = async (file: string) => {
    const to = path.join(dir, path.basename(file));
    await copyFile(file, to);
    return to;
  };
  return {
    ca: await copy(tls.ca),
    cert: await copy(tls.cert),
    key: await copy(tls.key),
    certKey: await copy(tls.certKey),
  };
}

/** The upstream's own listener for a protocol: HTTP/1.1 or gRPC (h2c), each also over TLS. */
function directUrl(upstream: StartedUpstream, protocol: Protocol): string {
  const ports: Partial<Record<Protocol, number | undefined>> = {
    http1: upstream.port,
    https: upstream.httpsPort,
    grpc: upstream.grpcPort,
    grpcs: upstream.grpcsPort,
  };
  const port = ports[protocol];
  if (port === undefined) throw new Error(`the upstream has no ${protocol} listener`);
  return `${urlScheme(protocol)}://${upstream.host}:${port}`;
}

/**
 * A cell over TLS: one handshake with its target, recorded in the environment (keyed
 * proxy/protocol); undefined when it succeeded or the cell is not over TLS, else why it failed
 * (naming the proxy and the certificate).
 */
async function checkTls(
  a: ActiveCell,
  host: string,
  port: number,
  ctx: BlockContext,
): Promise<string | undefined> {
  const protocol = a.planned.scenario.manifest.protocol;
  if (!usesTls(protocol) || ctx.tls === undefined) return undefined;
  const proxy = a.planned.proxy.manifest.name;
  const alpn = protocol === "https" ? ["http/1.1"] : ["h2"];
  try {
    const handshake = await probeHandshake(host, port, ctx.tls, proxy, alpn);
    ctx.results.environment.tls = { ...ctx.results.environment.tls, [`${proxy}/${protocol}`]: handshake };
    return undefined;
  } catch (err) {
    if (err instanceof UserError) return err.message;
    throw err;
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
