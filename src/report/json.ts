import type { ReportModel } from "./model.js";
import { comparisonTable, latencyTable, type ComparisonTable, type LatencyTable } from "./tables.js";

/** `proxybench report --format json`: the report model with each group's computed tables. */
export interface ReportJson extends ReportModel {
  groups: Array<
    ReportModel["groups"][number] & { tables: { comparison: ComparisonTable; latency: LatencyTable } }
  >;
}

export function reportJson(model: ReportModel): ReportJson {
  return {
    header: model.header,
    groups: model.groups.map((group) => ({
      ...group,
      tables: { comparison: comparisonTable(group), latency: latencyTable(group) },
    })),
  };
}
