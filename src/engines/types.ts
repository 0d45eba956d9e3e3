import type { ScenarioManifest } from "../manifests/schema.js";
import type { Engine, Load, Repetition } from "../results/schema.js";

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

/**
 * What a normaliser reads off an engine's own output: the figures of a results.json repetition
 * (src/results/schema.ts says what each is); the adapter adds CPU, raw files and exit code.
 */
export type EngineFigures = Pick<
  Repetition,
  | "durationS"
  | "rps"
  | "requests"
  | "errors"
  | "non2xx"
  | "checkFailures"
  | "statusCodes"
  | "droppedIterations"
  | "bytesReceived"
  | "latencyMs"
> & { latencyPercentilesMs: Record<string, number> };

/** What one engine run measured, normalised across engines (maps onto a results.json repetition). */
export type EngineMeasurement = Omit<EngineFigures, "latencyPercentilesMs"> &
  Pick<Repetition, "latencyPercentilesMs" | "loadgenCpu"> & {
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
  };

export interface EngineAdapter {
  readonly name: Engine;
  /** Finds the engine's executable and version; throws a UserError saying how to install it. */
  locate(): Promise<{ path: string; version: string }>;
  run(inv: EngineInvocation): Promise<EngineMeasurement>;
}

/** A repetition's status and the reasons for it. */
export type Classification = Pick<Repetition, "status" | "reasons">;

export interface ProbeResult {
  ok: boolean;
  reasons: string[];
  statusCodes: Record<string, number>;
}
