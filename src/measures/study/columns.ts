import type { LatencyStat, ReportColumn } from "../../report/model.js";
import type { Load } from "../../results/schema.js";

/** A study table's groups and columns: what report.ts makes of a run and its sections render. */

/**
 * One column of a study table: a proxy at a load level, and the cell measured when there is one
 * (its repetitions pair by round with the baseline's).
 */
export interface StudyColumn extends Pick<
  ReportColumn,
  "proxy" | "cellId" | "status" | "reasons" | "repetitions"
> {
  load: string;
  /** Medians over the repetitions; only for an ok column. */
  values?: StudyValues;
}

export interface StudyValues extends Pick<NonNullable<ReportColumn["values"]>, "rps" | "percentilesMs"> {
  latencyMs: Record<LatencyStat, number>;
  /** Failed requests (transport errors, non-2xx, failed checks) over all requests, %. */
  failedPct: number;
  requests: number;
  badResponses: number;
  bytesReceived?: number;
  durationS: number;
}

export interface StudyGroup {
  scenario: string;
  loads: Load[];
  columns: StudyColumn[];
}
