import path from "node:path";
import { findExecutable } from "../util/paths.js";
import { freePort } from "../util/ports.js";
import { LOG_TAIL_LINES, oneLine } from "./cell.js";
import type { ActiveCell, CellContext } from "./context.js";
import { logTail } from "../util/logs.js";
import { waitReady } from "./ready.js";
import type { ProcessSpec, Runtime } from "./runtime.js";
import { buildSidecarSpec, type ProxyContext } from "./specs.js";
import type { LoadedProxy } from "../manifests/load.js";

/**
 * A proxy's sidecar (the extensibility study's coprocessor): started before the proxy, on its
 * own cores and with the proxy's memory cap, stopped with the cell, and checked after every
 * repetition: a sidecar that died makes the repetition and the cell invalid, with the end of
 * its log, and the other cells go on. Under `--runtime docker` a sidecar with an `image` runs
 * from it, in a container on the host network like the proxy's; otherwise natively.
 */

const SIDECAR_READY_S = 20;

type Sidecar = NonNullable<LoadedProxy["manifest"]["sidecar"]>;

/** How the sidecar starts here: its runtime and process, or why it cannot. */
async function sidecarLaunch(
  proxy: LoadedProxy,
  sidecar: Sidecar,
  ctx: Pick<CellContext, "runtime" | "upstreamRuntime">,
  pctx: ProxyContext,
  logFile: string,
): Promise<{ runtime: Runtime; spec: ProcessSpec } | { problem: string }> {
  if (ctx.runtime.kind === "docker" && sidecar.image !== undefined) {
    return { runtime: ctx.runtime, spec: buildSidecarSpec(proxy, pctx, sidecar.image, logFile, true) };
  }
  if (sidecar.binary === undefined) {
    return {
      problem: `sidecar ${sidecar.name}: image only (${sidecar.image}): it runs under --runtime docker`,
    };
  }
  const binary = await findExecutable(sidecar.binary);
  if (!binary) return { problem: `sidecar ${sidecar.name}: '${sidecar.binary}' not found` };
  return { runtime: ctx.upstreamRuntime, spec: buildSidecarSpec(proxy, pctx, binary, logFile) };
}

/**
 * Starts the cell's sidecar, if its proxy has one; returns the port it listens on, or a
 * problem recorded on the cell (the cell is then stopped before its proxy starts).
 */
export async function startSidecar(
  a: ActiveCell,
  ctx: CellContext,
  pctx: Omit<ProxyContext, "listenPort">,
  stem: string,
): Promise<{ port?: number; problem?: string }> {
  const sidecar = a.planned.proxy.manifest.sidecar;
  if (!sidecar) return {};
  const port = await freePort();
  const logRel = `logs/${stem}-${sidecar.name}.log`;
  const logFile = path.join(ctx.dir, logRel);
  const sidecarCtx = { ...pctx, listenPort: 0, sidecarPort: port };
  const launch = await sidecarLaunch(a.planned.proxy, sidecar, ctx, sidecarCtx, logFile);
  if ("problem" in launch) return { problem: launch.problem };
  a.cell.logs.push(logRel);
  try {
    a.sidecar = { name: sidecar.name, proc: await launch.runtime.start(launch.spec), logFile };
  } catch (err) {
    return { problem: `sidecar ${sidecar.name} could not start: ${(err as Error).message}` };
  }
  const url = `http://127.0.0.1:${port}${sidecar.ready}`;
  const notReady = await waitReady(url, SIDECAR_READY_S, a.sidecar.proc, ctx.signal);
  if (!notReady) return { port };
  const tail = await logTail(logFile, LOG_TAIL_LINES);
  return {
    problem: `sidecar ${sidecar.name} did not come up: ${notReady}${tail ? `; log: ${oneLine(tail)}` : ""}`,
  };
}

/** Why the cell's sidecar is gone (with the end of its log), or undefined while it runs. */
export async function sidecarGone(a: ActiveCell, during: string): Promise<string | undefined> {
  if (!a.sidecar || a.sidecar.proc.alive()) return undefined;
  const { code, signal } = await a.sidecar.proc.exited;
  const tail = await logTail(a.sidecar.logFile, LOG_TAIL_LINES);
  return (
    `sidecar ${a.sidecar.name} exited during ${during} (${signal ? `signal ${signal}` : `exit code ${code}`})` +
    (tail ? `; log: ${oneLine(tail)}` : "; empty log")
  );
}
