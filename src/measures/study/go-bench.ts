import { markdownTable } from "markdown-table";
import { escapeMarkdown } from "../../render/escape.js";
import { formatCount, formatMs, formatPercent, formatRps } from "../../render/format.js";
import { columnName } from "../../report/model.js";
import { percentChange } from "../../report/tables.js";
import type { StudyColumn, StudyGroup } from "./columns.js";
import type { StudyManifest, StudyPath } from "./schema.js";

/**
 * The `go-bench` layout (pure): the original's `go test -bench` lines, one per path, then the
 * paths with their change against each reference path. ns/op is the mean latency of a call in
 * nanoseconds and N the calls measured (medians over the repetitions); a path that is not ok
 * shows its status instead, never a number.
 */

/** The column of a path: its proxy (over its protocol) on its scenario, at the first load measured. */
function pathColumn(path: StudyPath, groups: readonly StudyGroup[]): StudyColumn | undefined {
  const name = columnName(path);
  return groups.find((g) => g.scenario === path.scenario)?.columns.find((c) => c.proxy === name);
}

function nsPerOp(column: StudyColumn | undefined): number | undefined {
  return column?.values ? Math.round(column.values.latencyMs.mean * 1e6) : undefined;
}

/** One `go test -bench` line per path, aligned as Go prints them. */
export function renderGoBenchLines(paths: readonly StudyPath[], groups: readonly StudyGroup[]): string {
  const width = Math.max(...paths.map((p) => p.name.length));
  const lines = paths.map((p) => {
    const column = pathColumn(p, groups);
    const ns = nsPerOp(column);
    const name = p.name.padEnd(width);
    if (column?.values === undefined || ns === undefined) {
      return `${name}\t${column ? column.status : "skipped"} (no figures)`;
    }
    return `${name}\t${String(Math.round(column.values.requests)).padStart(8)}\t${String(ns).padStart(10)} ns/op`;
  });
  return ["```", ...lines, "```"].join("\n");
}

/** The paths with mean, p50, p99, req/s and the change of the mean against each reference. */
export function renderGoBenchTable(
  paths: readonly StudyPath[],
  references: readonly string[],
  groups: readonly StudyGroup[],
): string {
  const refs = references.map((name) => {
    const path = paths.find((p) => p.name === name)!;
    return { name, ns: nsPerOp(pathColumn(path, groups)) };
  });
  const header = [
    "path",
    "proxy",
    "ns/op (mean)",
    "p50 (ms)",
    "p99 (ms)",
    "calls/s",
    ...refs.map((r) => `vs ${shortName(r.name)}`),
  ];
  const body = paths.map((p) => {
    const column = pathColumn(p, groups);
    const v = column?.values;
    const ns = nsPerOp(column);
    const names = [escapeMarkdown(shortName(p.name)), escapeMarkdown(columnName(p))];
    if (v === undefined || ns === undefined) {
      return [...names, column?.status ?? "skipped", "", "", "", ...refs.map(() => "")];
    }
    return [
      ...names,
      formatCount(ns),
      formatMs(v.latencyMs.p50),
      formatMs(v.latencyMs.p99),
      formatRps(v.rps),
      ...refs.map((r) => {
        if (r.name === p.name) return "(reference)";
        const change = percentChange(ns, r.ns);
        return change === undefined ? "" : formatPercent(change);
      }),
    ];
  });
  return markdownTable([header, ...body], {
    align: ["l", "l", "r", "r", "r", "r", ...refs.map(() => "r" as const)],
  });
}

/** `BenchmarkNginxGrpc/pingpong_proto_ingestion` -> `NginxGrpc`. */
function shortName(name: string): string {
  return name.replace(/^Benchmark/, "").split("/")[0] ?? name;
}

/** The whole go-bench section of a study report (empty for another layout). */
export function renderGoBenchSection(study: StudyManifest, groups: readonly StudyGroup[]): string[] {
  if (study.layout !== "go-bench" || !study.paths) return [];
  const references = study.references ?? [];
  const refText = references.map((r) => `**${escapeMarkdown(shortName(r))}**`).join(" and ");
  return [
    renderGoBenchLines(study.paths, groups),
    renderGoBenchTable(study.paths, references, groups),
    `ns/op is the mean latency of a call under the scenario's load (not one sequential client's loop, as in the original), N the calls measured; medians over the repetitions.` +
      (refText ? ` Changes are of ns/op against ${refText}.` : ""),
  ];
}
