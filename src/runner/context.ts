import type { Classification, EngineAdapter, EngineMeasurement, ProbeResult } from "../engines/types.js";
import type { ManifestDirs } from "../manifests/load.js";
import type { ScenarioManifest } from "../manifests/schema.js";
import type { Cell, CellStatus, Engine, Results } from "../results/schema.js";
import type { noiseSnapshot } from "./noise.js";
import type { PlannedCell } from "./plan.js";
import type { Progress, ProgressStream } from "./progress.js";
import type { RunningProcess, Runtime } from "./runtime.js";
import type { TlsFiles } from "./tls.js";

/**
 * What a run's blocks and cells share, each file of the runner reading it here: the run's
 * dependencies, a block's context and a cell while it runs (no import of the files using them).
 */

/** What the runner needs from the engines (src/engines); tests may pass their own. */
export interface EngineApi {
  getEngine(name: Engine): EngineAdapter;
  classifyRepetition(m: EngineMeasurement, ctx: { loadgenCores: number }): Classification;
  /** `ca`: the run's CA (PEM) for a target over TLS. */
  probe(baseUrl: string, scenario: ScenarioManifest, ca?: string): Promise<ProbeResult>;
}

export interface RunDeps {
  engines: EngineApi;
  /** Where the proxies run; default: the one settings.runtime names. */
  runtime?: Runtime;
  stdout?: ProgressStream;
  stderr?: ProgressStream;
  cores?: number;
  /** Built-in manifest folders (tests). */
  builtinDirs?: Pick<ManifestDirs, "builtinProxiesDir" | "builtinScenariosDir">;
  /** Save and exit 130 on SIGINT/SIGTERM (the CLI); default true. */
  handleSignals?: boolean;
  /** Called around every measured attempt (benchmarks put a neighbour's load there). */
  onMeasure?: (event: { cellId: string; variant?: string; round: number; phase: "start" | "end" }) => void;
  /** Renders the final table; absent: no table. */
  renderReport?: (results: Results) => string;
  /** Reads the pinned cores' counters before and after a repetition; default: /proc (noiseSnapshot). */
  noiseSnapshot?: typeof noiseSnapshot;
}

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

/** What every block of a run shares. */
export interface BlockContext extends CellContext {
  deps: RunDeps;
  upstreamBinary: string;
  results: Results;
  progress: Progress;
  save: () => Promise<void>;
}
