import { worstStatus, type Cell, type CellStatus, type Results } from "../results/schema.js";
import { logTail } from "../util/logs.js";
import { proxyStem, type PlannedCell } from "./plan.js";
import type { Progress } from "./progress.js";
import type { RunDeps } from "./run.js";
import type { RunningProcess, Runtime } from "./runtime.js";
import type { TlsFiles } from "./tls.js";

/** A cell of a block while it runs: its proxy process and the problems found on the way. */
export interface ActiveCell {
  planned: PlannedCell;
  cell: Cell;
  baseUrl: string;
  proc?: RunningProcess;
  logFile?: string;
  /** The proxy's sidecar (a coprocessor), when its manifest has one. */
  sidecar?: { name: string; proc: RunningProcess; logFile: string };
  /** Cell-level problems (setup, a process that died), on top of its repetitions'. */
  problems: Array<{ status: CellStatus; reason: string }>;
  stopped: boolean;
  /** Stops the proxy and starts it anew, as it was started (its sidecar stays up); absent for `direct`. */
  restart?: () => Promise<void>;
  /** Repetitions the proxy's current process has served (with --proxy-lifetime round, at most one). */
  servedByProcess: number;
}

/** What starting a cell needs: a run's block, or a max-rate search's one cell. */
export interface CellContext {
  settings: Results["settings"];
  runtime: Runtime;
  upstreamRuntime: Runtime;
  dir: string;
  binaries: Map<string, { path: string; version: string }>;
  /** Where a TLS handshake with a cell's proxy is recorded (environment.tls); the kernel's steal accounting. */
  results: { environment: Pick<Results["environment"], "tls" | "stealAccounting"> };
  signal: AbortSignal;
  isInterrupted: () => boolean;
  /** The run's CA and server certificate (and the CA's PEM text), when a cell speaks TLS. */
  tls?: TlsFiles & { caPem: string };
}

/** What every block of a run shares. */
export interface BlockContext extends CellContext {
  deps: RunDeps;
  upstreamBinary: string;
  results: Results;
  progress: Progress;
  save: () => Promise<void>;
}

export class Interrupted extends Error {}

export const LOG_TAIL_LINES = 8;

export function oneLine(text: string): string {
  return text.split("\n").join(" | ");
}

/** When the cell's proxy died: stops the cell and returns why; undefined while it is alive. */
export async function checkAlive(
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

export async function stopCell(a: ActiveCell): Promise<void> {
  a.stopped = true;
  // Also when the proxy died: its runtime removes what it left (workers, a container).
  await a.proc?.stop();
  await a.sidecar?.proc.stop();
}

type Judged = Pick<Cell, "status" | "reasons">;

/**
 * A cell's status and reasons, wall-clock or counted: the worst status of its repetitions and its
 * own problems, each reason once.
 */
export function updateCell(
  cell: Judged & { repetitions: Judged[] },
  problems: ActiveCell["problems"] = [],
): void {
  cell.status = worstStatus([...problems.map((p) => p.status), ...cell.repetitions.map((r) => r.status)]);
  const reasons = [...cell.repetitions.flatMap((r) => r.reasons), ...problems.map((p) => p.reason)];
  cell.reasons = [...new Set(reasons)];
}

export function finishCell(a: ActiveCell): void {
  updateCell(a.cell, a.problems);
  a.cell.finishedAt = new Date().toISOString();
}

/** "nginx" or "nginx (head)" in a variant run: how progress lines name a cell. */
export function cellName(a: ActiveCell): string {
  const v = a.planned.variant;
  return v === undefined ? a.planned.proxy.manifest.name : `${a.planned.proxy.manifest.name} (${v})`;
}

/** File-name part of a cell: "nginx" or "nginx@head". */
export function cellStem(a: ActiveCell): string {
  return proxyStem(a.planned.proxy.manifest.name, a.planned.variant);
}
