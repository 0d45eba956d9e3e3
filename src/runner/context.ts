import type { Cell, CellStatus, Results } from "../results/schema.js";
import type { PlannedCell } from "./plan.js";
import type { RunningProcess, Runtime } from "./runtime.js";
import type { TlsFiles } from "./tls.js";

/**
 * What the cells of a measurement share, each file of the runner reading it here: a cell while
 * it runs and what starting one needs (no import of the files using them). A wall-clock run's
 * dependencies and blocks: measures/wall-clock/context.ts.
 */

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
  /**
   * Runs the proxy's current process has served (its probe, warm-ups, repetitions); with
   * --proxy-lifetime round a measured process has served only its own warm-up before.
   */
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
