import type { ReportModel } from "./model.js";
import { comparisonTable, latencyTable } from "./tables.js";

/** `proxybench report --format json`: the report model with each group's computed tables. */
export type ReportJson = ReturnType<typeof reportJson>;

export function reportJson(model: ReportModel) {
  return {
    header: model.header,
    groups: model.groups.map((group) => ({
      ...group,
      tables: { comparison: comparisonTable(group), latency: latencyTable(group) },
    })),
  };
}
