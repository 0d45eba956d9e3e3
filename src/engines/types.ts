import type { ScenarioManifest } from "../manifests/schema.js";
import type { CellStatus, Engine, LatencyMs, Load } from "../results/schema.js";

/** One run of a load generator against one target: a warm-up or a measured repetition. */
export interface EngineInvocation {
  scenario: ScenarioManifest;
  /** The scenario's folder (where its k6 script lives). */
  scenarioDir: string;
  load: Load;
  /** Length of this run in seconds (a warm-up is a separate, shorter invocation). */
  durationS: number;
  /** Where the load goes, e.g. http://127.0.0.1:PORT (no trailing slash needed). */
  baseUrl: string;
  /** Cores the load generator is pinned to (taskset). Empty: not pinned. */
  cpus: number[];
  /** Raw outputs are written to outDir/fileStem.* and listed in `raw` relative to outDir. */
  outDir: string;
  fileStem: string;
  signal?: AbortSignal;
  /** The CA (PEM file) to trust, when baseUrl is https:// (the run's own CA). */
  caFile?: string;
}

/** What one engine run measured, normalised across engines (maps onto a results.json repetition). */
export interface EngineMeasurement {
  /** Wall time of the load phase, seconds (as the engine measured it). */
  durationS: number;
  /** Successful (2xx and check-passing) responses per second. */
  rps: number;
  /** All requests completed, successful or not (transport errors included). */
  requests: number;
  /** Transport errors: refused, reset, timed out. */
  errors: number;
  non2xx: number;
  /** 2xx responses whose body or content type failed the scenario's check. */
  checkFailures: number;
  /** Responses per HTTP status code; "0" for transport errors. */
  statusCodes: Record<string, number>;
  /** Open-model iterations the load generator could not start. */
  droppedIterations: number;
  bytesReceived?: number;
  /** Latency of successful responses only. */
  latencyMs: LatencyMs;
  /** Extra percentiles keyed by percent, e.g. {"75": 1.2, "99.9": 4.1}. */
  latencyPercentilesMs?: Record<string, number>;
  /** CPU used by the load generator during the run, in cores (1 = one full core). */
  loadgenCpu?: number;
  /**
   * How busy the load generator's pinned cores were during the run, by any process, in cores.
   * Well above `loadgenCpu` when other processes compete for those cores (a shared machine).
   */
  loadgenCoresBusy?: number;
  /** Raw engine output files, relative to outDir. */
  raw: string[];
  /** The engine's exit code (null: killed by a signal). */
  exitCode: number | null;
  /** Why the engine run is not trustworthy as a run (crash, script error, abort, no output). */
  engineErrors: string[];
  /** A few distinct problems of the responses that failed the check, when the engine judges each one. */
  checkProblems?: string[];
}

/** What a normaliser reads off an engine's own output; the adapter adds CPU, raw files and exit code. */
export type EngineFigures = Omit<
  EngineMeasurement,
  | "loadgenCpu"
  | "loadgenCoresBusy"
  | "raw"
  | "exitCode"
  | "engineErrors"
  | "latencyPercentilesMs"
  | "checkProblems"
> & { latencyPercentilesMs: Record<string, number> };

export interface EngineAdapter {
  readonly name: Engine;
  /** Finds the engine's executable and version; throws a UserError saying how to install it. */
  locate(): Promise<{ path: string; version: string }>;
  run(inv: EngineInvocation): Promise<EngineMeasurement>;
}

export interface Classification {
  status: CellStatus;
  reasons: string[];
}

export interface ProbeResult {
  ok: boolean;
  reasons: string[];
  statusCodes: Record<string, number>;
}
