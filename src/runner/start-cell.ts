import { copyFile, mkdir } from "node:fs/promises";
import { fileSize } from "../util/paths.js";
import path from "node:path";
import { isGrpc, urlScheme, usesTls } from "../results/protocols.js";
import type { Cell, Protocol } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { logFrom, tailOf } from "../util/logs.js";
import { freePort } from "../util/ports.js";
import { cellStem, Interrupted, LOG_TAIL_LINES, oneLine, stopCell } from "./cell.js";
import type { ActiveCell, CellContext } from "./context.js";
import type { Block, PlannedCell } from "./plan.js";
import { waitReady } from "./ready.js";
import { startSidecar } from "./sidecar.js";
import {
  buildDockerProxySpec,
  buildProxySpec,
  imageRef,
  proxyImageTag,
  renderConfigs,
  type ProxyContext,
} from "./specs.js";
import { readTemplates, writeConfigFiles } from "./proxy-configs.js";
import type { ProcessSpec } from "./runtime.js";
import { probeHandshake, type TlsFiles } from "./tls.js";
import type { StartedUpstream } from "./upstream.js";

/**
 * Starting one cell of a block: its record in results.json, and for a proxy its rendered
 * configs, its sidecar, the process itself and the wait until it answers (over TLS, with the
 * handshake recorded).
 */

/** Creates the cell and, for a proxy, renders its configs, starts it and waits until it answers. */
export async function startCell(
  planned: PlannedCell,
  block: Block,
  upstream: StartedUpstream,
  upstreamLogRel: string,
  ctx: CellContext,
): Promise<ActiveCell> {
  const cell = newCell(planned, upstreamLogRel, ctx);
  const a: ActiveCell = { planned, cell, baseUrl: "", problems: [], stopped: false, servedByProcess: 0 };
  if (planned.proxy.manifest.kind === "direct") {
    a.baseUrl = directUrl(upstream, planned.scenario.manifest.protocol);
    const problem = await checkTls(a, upstream.host, Number(new URL(a.baseUrl).port), ctx);
    if (problem !== undefined) a.problems.push({ status: "failed", reason: problem });
    return a;
  }
  const launch = await prepareLaunch(a, block, upstream, ctx);
  const sidecar = await startSidecar(a, ctx, launch.shared, launch.instance);
  if (sidecar.problem !== undefined) {
    a.problems.push({ status: "failed", reason: sidecar.problem });
    await stopCell(a);
    return a;
  }
  await startProxy(a, launch, sidecar.port, ctx);
  a.restart = async () => {
    await a.proc?.stop();
    a.servedByProcess = 0;
    await startProxy(a, launch, sidecar.port, ctx);
  };
  return a;
}

/** The cell's record as results.json holds it before its first repetition. */
function newCell(planned: PlannedCell, upstreamLogRel: string, ctx: CellContext): Cell {
  const m = planned.proxy.manifest;
  const binary = ctx.binaries.get(m.name);
  const { protocol, upstream } = planned.scenario.manifest;
  return {
    id: planned.id,
    ...(planned.variant !== undefined ? { variant: planned.variant } : {}),
    upstream: { latencyMs: upstream.latencyMs, maxRps: upstream.maxRps },
    proxy: m.name,
    scenario: planned.scenario.manifest.name,
    engine: planned.engine,
    ...(protocol === "http1" ? {} : { protocol }),
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
}

/** What starting a proxy needs, whatever its port: its folders, log, config templates. */
type Launch = Awaited<ReturnType<typeof prepareLaunch>>;

async function prepareLaunch(a: ActiveCell, block: Block, upstream: StartedUpstream, ctx: CellContext) {
  const { planned } = a;
  const protocol = planned.scenario.manifest.protocol;
  // The proxy instance's name in logs/ and work/: `<block>-<proxy>[@variant]`.
  const instance = `${block.key}-${cellStem(a)}`;
  const logRel = `logs/${instance}.log`;
  const workdir = path.join(ctx.dir, "work", instance);
  await mkdir(workdir, { recursive: true });
  a.cell.logs.unshift(logRel);
  const logFile = path.join(ctx.dir, logRel);
  a.logFile = logFile;
  const section: "native" | "image" = ctx.runtime.kind === "docker" ? "image" : "native";
  const templates = await readTemplates(planned.proxy, section, protocol);
  const shared = {
    listenHost: "127.0.0.1",
    upstreamHost: upstream.host,
    upstreamPort: upstream.port,
    upstreamGrpcPort: upstream.grpcPort,
    ...(upstream.grpcsPort === undefined ? {} : { upstreamGrpcsPort: upstream.grpcsPort }),
    ...(ctx.tls === undefined ? {} : { tls: await certificatesFor(ctx.tls, workdir, section) }),
    cpus: ctx.settings.cpus.proxy,
    workdir,
    logFile,
  };
  return { instance, logRel, logFile, section, templates, shared };
}

/**
 * Starts the proxy and waits until it answers. The port is free when chosen but another
 * process may take it before the proxy binds it: one more try on a new port when the proxy
 * says so.
 */
async function startProxy(
  a: ActiveCell,
  launch: Launch,
  sidecarPort: number | undefined,
  ctx: CellContext,
): Promise<void> {
  const name = a.planned.proxy.manifest.name;
  for (let attempt = 1; ; attempt++) {
    const pctx: ProxyContext = {
      ...launch.shared,
      listenPort: await freePort(),
      ...(sidecarPort === undefined ? {} : { sidecarPort }),
    };
    const spec = await writeConfigs(a, launch, pctx, ctx);
    const logOffset = await fileSize(launch.logFile);
    try {
      a.proc = await ctx.runtime.start(spec);
    } catch (err) {
      a.problems.push({ status: "failed", reason: `${name} could not start: ${(err as Error).message}` });
      await stopCell(a); // its sidecar too
      return;
    }
    const notReady = await awaitProxy(a, pctx, ctx);
    if (notReady === undefined) return;
    if (ctx.isInterrupted()) throw new Interrupted();
    await a.proc?.stop(); // the sidecar stays up for the next attempt
    const tail = tailOf(await logFrom(launch.logFile, logOffset), LOG_TAIL_LINES);
    if (attempt === 1 && PORT_IN_USE.test(tail)) continue;
    await stopCell(a);
    a.problems.push({
      status: "failed",
      reason: `${name} did not come up: ${notReady}; ${tail ? `log (${launch.logRel}): ${oneLine(tail)}` : `empty log ${launch.logRel}`}`,
    });
    return;
  }
}

/** Renders the proxy's configs for this port into its work folder; the process to start. */
async function writeConfigs(
  a: ActiveCell,
  launch: Launch,
  pctx: ProxyContext,
  ctx: CellContext,
): Promise<ProcessSpec> {
  const { proxy, variant } = a.planned;
  const protocol = a.planned.scenario.manifest.protocol;
  a.baseUrl = `${urlScheme(protocol)}://${pctx.listenHost}:${pctx.listenPort}`;
  const configs = renderConfigs(proxy, launch.section, pctx, launch.templates, protocol);
  await writeConfigFiles(configs);
  const name = proxy.manifest.name;
  if (launch.section === "image") {
    return buildDockerProxySpec(proxy, pctx, configs, imageRef(name, proxyImageTag(ctx.settings, variant)));
  }
  const binary = ctx.binaries.get(name);
  return buildProxySpec(proxy, pctx, binary?.path ?? proxy.manifest.native?.binary ?? name, "native");
}

/**
 * Waits until the started proxy answers: why not, or undefined when it does. Over TLS, a
 * handshake (ready or not) records what it settled on; a failed one stops the cell with the
 * reason naming the certificate (undefined too: nothing is left to try).
 */
async function awaitProxy(a: ActiveCell, pctx: ProxyContext, ctx: CellContext): Promise<string | undefined> {
  const m = a.planned.proxy.manifest;
  const protocol = a.planned.scenario.manifest.protocol;
  const readyUrl = isGrpc(protocol) ? a.baseUrl : `${a.baseUrl}${m.ready.path}`;
  const ca = usesTls(protocol) ? ctx.tls?.caPem : undefined;
  const notReady = await waitReady(readyUrl, m.ready.timeoutS, a.proc, ctx.signal, protocol, ca);
  const tlsProblem = await checkTls(a, pctx.listenHost, pctx.listenPort, ctx);
  if (tlsProblem !== undefined && (!notReady || notReady.startsWith("TLS"))) {
    await stopCell(a);
    a.problems.push({ status: "failed", reason: tlsProblem });
    return undefined;
  }
  return notReady || undefined;
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
  const copies: Partial<TlsFiles> = {};
  for (const key of ["ca", "cert", "key", "certKey"] as const) {
    copies[key] = path.join(dir, path.basename(tls[key]));
    await copyFile(tls[key], copies[key]);
  }
  return copies as TlsFiles;
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
  ctx: CellContext,
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
