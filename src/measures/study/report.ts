import { markdownTable } from "markdown-table";
import { escapeMarkdown, MARKDOWN } from "../../render/escape.js";
import { judgeDifferences, measuredTogether, type DifferenceMember } from "../../report/differences.js";
import { formatCount, formatMs, formatRps, plural } from "../../render/format.js";
import { changeText } from "../../report/cells.js";
import { stealRuleOf, type StealRule } from "../../stats/steal.js";
import { heading, titledList } from "../../render/markdown.js";
import { describeLoad, noiseNote, skippedText } from "../../report/markdown.js";
import {
  buildHeader,
  cellColumn,
  LATENCY_STATS,
  medianOf,
  orderColumns,
  type LatencyStat,
  type ReportColumn,
} from "../../report/model.js";
import { noiseOf, percentChange, type TableCell } from "../../report/tables.js";
import type { Cell, Load, Repetition, Results } from "../../results/schema.js";
import type { StudyColumn, StudyGroup, StudyValues } from "./columns.js";
import { renderGoBenchSection } from "./go-bench.js";
import { renderParitySection } from "./parity.js";
import { studyBaseline, type StudyLayout, type StudyManifest } from "./schema.js";

/**
 * A study's report in the layout its original published (pure): `k6-summary`, `crank-compare`
 * or `ab`, then the config parity of the proxies. A column that is not ok (invalid, failed,
 * loadgen-bound) or was skipped shows its status, and its reasons below the table: never
 * numbers that look like a measurement.
 */

export interface StudyReportInput {
  study: StudyManifest;
  results: Results;
  /** Heading level of the title (default 2). */
  headingLevel?: number;
}

type Skipped = Results["skipped"][number];

/** `a`, then each of `b` not already there for the same proxy and scenario. */
export function mergeSkipped(a: readonly Skipped[], b: readonly Skipped[]): Skipped[] {
  const out = [...a];
  for (const s of b) if (!out.some((x) => x.proxy === s.proxy && x.scenario === s.scenario)) out.push(s);
  return out;
}

function valuesOf(cell: Cell, column: ReportColumn): StudyValues | undefined {
  if (column.status !== "ok" || column.values === undefined) return undefined;
  const reps = cell.repetitions;
  const bytes = reps.flatMap((r) => (r.bytesReceived === undefined ? [] : [r.bytesReceived]));
  const bad = reps.map((r) => r.errors + r.non2xx + r.checkFailures);
  const l = column.values.latencyMs;
  return {
    rps: column.values.rps,
    latencyMs: Object.fromEntries(LATENCY_STATS.map((k) => [k, l[k] ?? NaN])) as Record<LatencyStat, number>,
    failedPct: medianOf(reps.map((r, i) => (r.requests > 0 ? ((bad[i] ?? 0) / r.requests) * 100 : 0))),
    requests: medianOf(reps.map((r) => r.requests)),
    badResponses: medianOf(bad),
    ...(bytes.length === reps.length && bytes.length > 0 ? { bytesReceived: medianOf(bytes) } : {}),
    durationS: medianOf(reps.map((r) => r.durationS)),
    percentilesMs: column.values.percentilesMs,
  };
}

/** The column of a proxy not run at a load, with why. */
function skippedColumn(proxy: string, load: string, scenario: string, skipped: Skipped[]): StudyColumn {
  const skip = skipped.find((s) => s.proxy === proxy && (s.scenario ?? scenario) === scenario);
  return { proxy, load, status: "skipped", reasons: [skip?.reason ?? "not run"], repetitions: 0 };
}

/**
 * The study's tables as data: per scenario, a column per load level and proxy (study order),
 * skipped proxies included as `skipped` columns.
 */
export function studyGroups(study: StudyManifest, results: Results, skipped: Skipped[]): StudyGroup[] {
  const groups: StudyGroup[] = [];
  for (const scenario of study.scenarios) {
    const cells = results.cells.filter((c) => c.scenario === scenario);
    const loads: Load[] = [];
    for (const c of cells) if (!loads.some((l) => l.label === c.load.label)) loads.push(c.load);
    if (study.loads) loads.sort((a, b) => study.loads!.indexOf(a.label) - study.loads!.indexOf(b.label));
    const columns: StudyColumn[] = [];
    for (const load of loads) {
      for (const proxy of study.proxies) {
        // the proxy's cleartext cell, then its cell over TLS when the study measures both
        const found = cells.filter((c) => c.proxy === proxy && c.load.label === load.label);
        if (found.length === 0) columns.push(skippedColumn(proxy, load.label, scenario, skipped));
        for (const cell of found) {
          const column = cellColumn(cell);
          columns.push({ ...column, load: load.label, values: valuesOf(cell, column) });
        }
      }
    }
    if (loads.length === 0)
      columns.push(...study.proxies.map((p) => skippedColumn(p, "", scenario, skipped)));
    groups.push({ scenario, loads, columns });
  }
  return groups;
}

// ---------------------------------------------------------------- formatting

const mb = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const pct = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const us = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** k6's duration style: µs below 1 ms, ms below 1 s, then s. */
export function formatK6Duration(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  if (ms < 1) return `${(ms * 1000).toFixed(2)}µs`;
  if (ms < 1000) return `${ms.toFixed(2)}ms`;
  return `${(ms / 1000).toFixed(2)}s`;
}

/** k6's data style: "53 MB 1.7 MB/s" (decimal units, as k6 prints them). */
export function formatK6Data(bytes: number, durationS: number): string {
  const unit = (b: number): string => {
    if (b >= 1e9) return `${mb.format(b / 1e9)} GB`;
    if (b >= 1e6) return `${mb.format(b / 1e6)} MB`;
    if (b >= 1e3) return `${mb.format(b / 1e3)} kB`;
    return `${mb.format(b)} B`;
  };
  return durationS > 0 ? `${unit(bytes)} ${unit(bytes / durationS)}/s` : unit(bytes);
}

function columnHeader(column: StudyColumn, withLoad: boolean): string {
  return withLoad && column.load
    ? `${escapeMarkdown(column.proxy)} · ${escapeMarkdown(column.load)}`
    : escapeMarkdown(column.proxy);
}

/**
 * Reasons that repeat with other figures (one per repetition: "core was 100% busy (0.14 used...)",
 * "... (0.27 used...)") collapse into the first, with how many more there were.
 */
export function summariseReasons(reasons: readonly string[]): string[] {
  const groups = new Map<string, { first: string; count: number }>();
  for (const r of reasons) {
    const key = r.replace(/\d+(\.\d+)?/g, "#");
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { first: r, count: 1 });
  }
  return [...groups.values()].map((g) =>
    g.count === 1 ? g.first : `${g.first} (and ${g.count - 1} more like it)`,
  );
}

/** Every column that is not ok, with its reasons (one line each). */
function renderColumnNotes(columns: StudyColumn[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const c of columns) {
    if (c.values !== undefined) continue;
    const key = `${c.proxy}\u0000${c.status}\u0000${c.reasons.join(";")}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const where = c.load && c.status !== "skipped" ? ` at ${escapeMarkdown(c.load)}` : "";
    const reasons = c.reasons.length
      ? summariseReasons(c.reasons).map(escapeMarkdown).join("; ")
      : "no reason given";
    lines.push(`- **${escapeMarkdown(c.proxy)}**${where} is ${c.status}: ${reasons}`);
  }
  return lines;
}

/**
 * A row of a metric-per-row table: its label, its figure of a column's values and, for a row of
 * crank's with a % change against the baseline, the figure compared (`get`) and the repetition's
 * figure it is paired by (`rep`).
 */
type StudyRow = [
  label: string,
  text: (v: StudyValues) => string,
  change?: { get: (v: StudyValues) => number; rep: (r: Repetition) => number },
];

/** The k6 end-of-test summary of the YARP study, one column per load level and proxy. */
const K6_SUMMARY_ROWS: readonly StudyRow[] = [
  ["http_req_duration avg", (v) => formatK6Duration(v.latencyMs.mean)],
  ["min", (v) => formatK6Duration(v.latencyMs.min)],
  ["med", (v) => formatK6Duration(v.latencyMs.p50)],
  ["max", (v) => formatK6Duration(v.latencyMs.max)],
  ["p(90)", (v) => formatK6Duration(v.latencyMs.p90)],
  ["p(95)", (v) => formatK6Duration(v.latencyMs.p95)],
  ["p(99)", (v) => formatK6Duration(v.latencyMs.p99)],
  ["http_req_failed", (v) => `${pct.format(v.failedPct)}%`],
  ["http_reqs", (v) => `${formatRps(v.rps)}/s`],
  [
    "data_received",
    (v) => (v.bytesReceived === undefined ? "n/a" : formatK6Data(v.bytesReceived, v.durationS)),
  ],
];

/** ab's figures of the Ocelot study: req/s, time per request, the percentile ladder. */
const AB_ROWS: readonly StudyRow[] = [
  ["Requests per second", (v) => formatRps(v.rps)],
  ["Time per request (ms, mean)", (v) => formatMs(v.latencyMs.mean)],
  [
    "Time per request (ms, mean, across all concurrent requests)",
    (v) => (v.requests > 0 ? formatMs((v.durationS * 1000) / v.requests) : "n/a"),
  ],
  ["Complete requests", (v) => formatCount(v.requests)],
  ["Failed or non-2xx requests", (v) => formatCount(v.badResponses)],
  ...["50", "66", "75", "80", "90", "95", "98", "99", "100"].map((p): StudyRow => [
    p === "100" ? "100% (longest request, ms)" : `${p}% (ms)`,
    (v) => {
      const value = v.percentilesMs[p] ?? (p === "100" ? v.latencyMs.max : undefined);
      return value === undefined ? "n/a" : formatMs(value);
    },
  ]),
];

/** crank compare's rows of the LLRP study; latency in µs, as crank prints it. */
const CRANK_ROWS: readonly StudyRow[] = [
  ["Requests", (v) => formatCount(v.requests), { get: (v) => v.requests, rep: (r) => r.requests }],
  ["Bad responses", (v) => formatCount(v.badResponses)],
  [
    "Mean latency (us)",
    (v) => us.format(v.latencyMs.mean * 1000),
    { get: (v) => v.latencyMs.mean * 1000, rep: (r) => r.latencyMs.mean },
  ],
  ["Max latency (us)", (v) => us.format(v.latencyMs.max * 1000)],
  ["Requests/sec", (v) => formatRps(v.rps), { get: (v) => v.rps, rep: (r) => r.rps }],
];

/**
 * The corner and rows of each layout's table but crank's: go-bench's scenario tables are k6's; the
 * extensibility study has its own report (extensibility/report.ts), ab's table stands in here.
 */
const LAYOUT_ROWS: Record<Exclude<StudyLayout, "crank-compare">, [string, readonly StudyRow[]]> = {
  "k6-summary": ["metric", K6_SUMMARY_ROWS],
  "go-bench": ["metric", K6_SUMMARY_ROWS],
  ab: ["", AB_ROWS],
  extensibility: ["", AB_ROWS],
};

/** A % change of crank's table: the change of the medians, and what the noise allows of it. */
type CrankChange = Pick<TableCell, "changePct" | "interval" | "withinNoise">;

/**
 * A row per metric, a column per proxy and load: its value, or its status when it has none;
 * with `against`, each column but the baseline's followed by its % change (`changes`, keyed
 * `row/column`).
 */
function renderRowsTable(
  group: StudyGroup,
  [corner, rows]: [string, readonly StudyRow[]],
  columns = group.columns,
  against?: { baseline: string; changes: Map<string, CrankChange> },
): string {
  const withLoad = group.loads.length > 1;
  // a column's text, then its % change's after every column but the baseline's
  const withChange = (c: StudyColumn, text: string, change: string) =>
    against !== undefined && c.proxy !== against.baseline ? [text, change] : [text];
  const header = [corner, ...columns.flatMap((c) => withChange(c, columnHeader(c, withLoad), ""))];
  const body = rows.map(([label, text], r) => [
    label,
    ...columns.flatMap((c, i) => {
      const change = changeText(against?.changes.get(`${r}/${i}`) ?? {});
      return withChange(c, c.values ? text(c.values) : c.status, change);
    }),
  ]);
  return markdownTable([header, ...body], { align: header.map((_, i) => (i === 0 ? "l" : "r")) });
}

/**
 * Every % change of crank's table (its columns in crank's order) against the baseline at its
 * load, keyed `row/column`, judged as one family (src/report/differences.ts): paired by round
 * with the baseline's cell.
 */
function crankChanges(ordered: readonly StudyColumn[], { baseline, cells, steal }: StudyTableInput) {
  const baseFor = (c: StudyColumn) => ordered.find((b) => b.proxy === baseline && b.load === c.load);
  const byId = new Map(cells.map((c) => [c.id, c]));
  const cellOf = (c: StudyColumn | undefined) => (c?.cellId === undefined ? undefined : byId.get(c.cellId));
  const shown: Array<{ key: string; changePct: number; member?: DifferenceMember }> = [];
  for (const [r, [, , compared]] of CRANK_ROWS.entries()) {
    ordered.forEach((c, i) => {
      const base = baseFor(c);
      if (compared === undefined || c.proxy === baseline || !c.values || !base?.values) return;
      const changePct = percentChange(compared.get(c.values), compared.get(base.values));
      if (changePct === undefined) return;
      const [b, o] = [cellOf(base), cellOf(c)];
      const paired = b !== undefined && o !== undefined && c.status === "ok" && measuredTogether(b, o);
      const member = paired ? { base: b, other: o, value: compared.rep, stealLimit: steal.limit } : undefined;
      shown.push({ key: `${r}/${i}`, changePct, ...(member ? { member } : {}) });
    });
  }
  const tested = shown.filter((s) => s.member !== undefined);
  const judged = tested.length > 0 ? judgeDifferences(tested.map((s) => s.member!)) : undefined;
  const changes = new Map<string, CrankChange>(
    shown.map((s) => [s.key, { changePct: s.changePct, ...noiseOf(judged?.differences[tested.indexOf(s)]) }]),
  );
  return { family: judged?.family, differences: judged?.differences ?? [], changes };
}

/** A load in words; a fixed-count load runs until its requests are done, so no duration. */
export function describeStudyLoad(load: Load): string {
  if (load.model !== "fixed-count") return describeLoad(load);
  const { durationS: _ignored, ...rest } = load;
  const text = describeLoad(rest);
  return load.keepAlive === true ? `${text}, keep-alive` : `${text}, no keep-alive`;
}

/** What a study's table compares against: its baseline, the run's cells and its steal rule. */
interface StudyTableInput {
  baseline: string;
  cells: readonly Cell[];
  steal: StealRule;
}

/**
 * A scenario's table in the study's layout (a line saying so when none of its cells was measured);
 * crank compare's (the baseline first, every other proxy with its signed % against it) with the
 * line on its changes' noise.
 */
function studyTable(layout: StudyLayout, group: StudyGroup, where: StudyTableInput) {
  if (group.loads.length === 0) return { table: "No cell of this scenario was measured.", notes: [] };
  if (layout !== "crank-compare") return { table: renderRowsTable(group, LAYOUT_ROWS[layout]), notes: [] };
  const { baseline } = where;
  const ordered = orderColumns(group.columns, baseline);
  const { family, differences, changes } = crankChanges(ordered, where);
  // No % columns at all when the baseline was measured at no load level (e.g. image only here).
  const measured = ordered.some((c) => c.proxy === baseline && c.values !== undefined);
  return {
    table: renderRowsTable(
      group,
      ["load", CRANK_ROWS],
      ordered,
      measured ? { baseline, changes } : undefined,
    ),
    notes:
      changes.size > 0
        ? [
            noiseNote(family, differences, MARKDOWN, {
              judgedOver: "this table",
              extremes: "Max latency is one request (the slowest): shown, never compared.",
            }),
          ]
        : [],
  };
}

/** One scenario's section: its heading, loads, table and notes. */
function renderGroup(
  study: StudyManifest,
  group: StudyGroup,
  where: StudyTableInput,
  level: number,
): string[] {
  const parts = [heading(level, escapeMarkdown(group.scenario))];
  const loads = group.loads.map((l) => `${escapeMarkdown(l.label)}: ${escapeMarkdown(describeStudyLoad(l))}`);
  if (loads.length > 0) parts.push(`Load: ${loads.join("; ")}.`);
  const { table, notes } = studyTable(study.layout, group, where);
  parts.push(table);
  const reps = new Set(group.columns.filter((c) => c.values).map((c) => c.repetitions));
  if (reps.size === 1) notes.unshift(`Values are medians over ${plural([...reps][0]!, "repetition")}.`);
  const { baseline } = where;
  if (study.layout === "crank-compare" && group.columns.some((c) => c.proxy === baseline && !c.values)) {
    notes.push(`Baseline **${escapeMarkdown(baseline)}** was not measured: no % changes against it.`);
  }
  const columnNotes = renderColumnNotes(group.columns);
  if (notes.length > 0 && columnNotes.length > 0) notes.push("");
  notes.push(...columnNotes);
  if (notes.length > 0) parts.push(notes.join("\n"));
  return parts;
}

/** The whole study report as markdown. */
export function renderStudyReport(input: StudyReportInput): string {
  const { study, results } = input;
  const level = input.headingLevel ?? 2;
  const { skipped } = results;
  const parts: string[] = [
    heading(level, `${escapeMarkdown(study.title)} (study ${escapeMarkdown(study.name)})`),
    `Reproduces ${escapeMarkdown(study.source.title)} (seed ${escapeMarkdown(study.source.seed)}): ` +
      `${escapeMarkdown(study.source.compared.replace(/\.?\s*$/, "."))} Original load: ${escapeMarkdown(study.source.load)}.`,
    buildHeader(results)
      .facts.map(([label, value]) => `- **${label}**: ${escapeMarkdown(value)}`)
      .join("\n"),
  ];
  if (skipped.length > 0) {
    const items = skipped.map((s) => skippedText(s, MARKDOWN));
    parts.push(titledList("Not measured here (never shown as numbers):", items));
  }
  const groups = studyGroups(study, results, skipped);
  parts.push(...renderGoBenchSection(study, groups));
  const where = { baseline: studyBaseline(study), cells: results.cells, steal: stealRuleOf(results) };
  for (const group of groups) parts.push(...renderGroup(study, group, where, level + 1));
  const parity = renderParitySection(results, level + 1);
  if (parity) parts.push(parity);
  return `${parts.join("\n\n")}\n`;
}
