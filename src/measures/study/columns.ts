import type { LatencyStat } from "../../report/model.js";
import type { CellStatus, Load } from "../../results/schema.js";

/** A study table's groups and columns: what report.ts makes of a run and its sections render. */

/** One column of a study table: a proxy at a load level. */
export interface StudyColumn {
  proxy: string;
  /** The cell measured, when there is one (its repetitions pair by round with the baseline's). */
  cellId?: string;
  load: string;
  status: CellStatus;
  reasons: string[];
  repetitions: number;
  /** Medians over the repetitions; only for an ok column. */
  values?: StudyValues;
}

export interface StudyValues {
  rps: number;
  latencyMs: Record<LatencyStat, number>;
  /** Failed requests (transport errors, non-2xx, failed checks) over all requests, %. */
  failedPct: number;
  requests: number;
  badResponses: number;
  bytesReceived?: number;
  durationS: number;
  percentilesMs: Record<string, number>;
}

export interface StudyGroup {
  scenario: string;
  loads: Load[];
  columns: StudyColumn[];
}
