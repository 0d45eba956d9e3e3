import { markdownTable } from "markdown-table";
import type { Load, Results } from "../results/schema.js";
import { escapeMarkdown, MARKDOWN, type Markup } from "../render/escape.js";
import { formatAlpha, formatMs, plural } from "../render/format.js";
import { heading, titledList } from "../render/markdown.js";
import { cellText, changeText, comparisonGrid, deltaText, formatMetric, WITHIN_NOISE } from "./cells.js";
import { buildReport, type ReportGroup, type ReportModel, type ReportOptions } from "./model.js";
import type { Difference, DifferenceFamily } from "./differences.js";
import { COST_NOTE, LATENCY_LABELS, latencyTable, showsCost } from "./tables.js";

export function describeLoad(load: Load): string {
  const parts: string[] = [load.model];
  if (load.vus !== undefined) parts.push(`${load.vus} VUs`);
  if (load.connections !== undefined) parts.push(`${load.connections} connections`);
  if (load.rate !== undefined) parts.push(`${load.rate}/s`);
  if (load.requests !== undefined) parts.push(`${load.requests} requests`);
  if (load.durationS !== undefined) parts.push(`${load.durationS} s`);
  if (load.warmupS !== undefined && load.warmupS > 0) parts.push(`after ${load.warmupS} s warm-up`);
  return parts.join(", ");
}

/** A group's title: its scenario, load, engine and variant. */
export function groupTitle(group: ReportGroup, { escape, strong }: Markup): string {
  let title = escape(group.scenario);
  if (group.load !== undefined) title += ` · ${escape(group.load.label)}`;
  if (group.engine !== undefined) title += ` (${escape(group.engine)})`;
  if (group.variant !== undefined) title += ` · variant ${strong(escape(group.variant))}`;
  return title;
}

/** What a group's tables measured: the load, and the baseline of the changes. */
export function groupIntro(group: ReportGroup, { escape, strong }: Markup): string[] {
  const intro: string[] = [];
  if (group.load !== undefined) intro.push(`Load: ${escape(describeLoad(group.load))}.`);
  if (group.baseline !== undefined && group.baselineProblem === undefined) {
    intro.push(`Baseline: ${strong(escape(group.baseline))}.`);
  }
  return intro;
}

/** A proxy that was not run, and why. */
export function skippedText(s: ReportModel["header"]["skipped"][number], { escape, strong }: Markup): string {
  const where = s.scenario === undefined ? "" : ` on ${escape(s.scenario)}`;
  return `${strong(escape(s.proxy))}${where}: ${escape(s.reason)}`;
}

/** How the tables are drawn. */
export interface TableOptions {
  /** Each value with its lowest and highest across the repetitions. */
  spread?: boolean;
}

/** crank compare's layout: metrics as rows, the baseline first, a % column after every other proxy. */
function renderComparisonTableMarkdown(group: ReportGroup, { spread }: TableOptions): string {
  const { proxies, rows } = comparisonGrid(group, {
    value: (cell, metric) => cellText(cell, (v) => formatMetric(metric, v), spread),
    change: changeText,
  });
  const header = ["metric", ...proxies.map(escapeMarkdown)];
  const body = rows.map((row) => [row.label, ...row.cells]);
  return markdownTable([header, ...body], { align: header.map((_, i) => (i === 0 ? "l" : "r")) });
}

/** The Apollo study's layout: a row per proxy, each stat with its (+delta ms) against the baseline. */
export function renderLatencyTableMarkdown(
  group: ReportGroup,
  rowLabel = "Proxy",
  { spread }: TableOptions = {},
): string {
  const table = latencyTable(group);
  const header = [rowLabel, ...table.stats.map((s) => LATENCY_LABELS[s])];
  const rows = table.rows.map((row) => [
    escapeMarkdown(row.proxy),
    ...row.cells.map((cell) => {
      const text = cellText(cell, formatMs, spread);
      return cell.delta === undefined ? text : `${text}<br>${deltaText(cell)}`;
    }),
  ]);
  return markdownTable([header, ...rows], { align: ["l", ...table.stats.map(() => "r" as const)] });
}

/** What the numbers are, and every column that is not ok with its reasons. */
export function renderGroupNotes(group: ReportGroup): string[] {
  const lines: string[] = [];
  const ok = group.columns.filter((c) => c.status === "ok");
  const counts = new Set(ok.map((c) => c.repetitions));
  if (group.valuesNote !== undefined) {
    lines.push(escapeMarkdown(group.valuesNote));
  } else if (counts.size === 1) {
    lines.push(`Values are medians over ${plural([...counts][0]!, "repetition")}.`);
  } else if (counts.size > 1) {
    const each = ok.map((c) => `${escapeMarkdown(c.proxy)} ${c.repetitions}`).join(", ");
    lines.push(`Values are medians over each proxy's repetitions (${each}).`);
  }
  lines.push(...changeAndCostNotes(group, MARKDOWN));
  const bounded = group.columns.filter((c) => c.bound).map((c) => `**${escapeMarkdown(c.proxy)}**`);
  if (bounded.length > 0) {
    lines.push(
      `${bounded.join(", ")}: the load generator was the limit, so the figures are bounds (req/s at least, latency at most), and so are the changes against ${bounded.length === 1 ? "it" : "them"}.`,
    );
  }
  const notOk = group.columns.filter((c) => c.status !== "ok");
  if (notOk.length > 0 && lines.length > 0) lines.push("");
  for (const column of notOk) {
    const reasons = column.reasons.length ? column.reasons.map(escapeMarkdown).join("; ") : "no reason given";
    lines.push(`- **${escapeMarkdown(column.proxy)}** is ${column.status}: ${reasons}`);
  }
  return lines;
}

/** Why the tables show no change of the extremes (src/report/model.ts: EXTREMES). */
const EXTREMES_NOTE =
  "Min and Max latency are one request each (the fastest and the slowest): shown, never compared.";

/**
 * What the group's changes need said once under its tables: why it has none against a baseline;
 * what the noise allows of them (the legend of `~` and the family of the intervals, or that no
 * change has an interval and how many repetitions would give one); what the proxy's cost rows are.
 */
export function changeAndCostNotes(group: ReportGroup, markup: Markup): string[] {
  const notes: string[] = [];
  const { baseline, columns } = group;
  const changed = columns.some((c) => c.proxy !== baseline && c.values !== undefined);
  if (group.baselineProblem !== undefined) {
    notes.push(`No changes against a baseline: ${markup.escape(group.baselineProblem)}.`);
  } else if (changed && columns.find((c) => c.proxy === baseline)?.bound === true) {
    notes.push(
      `No change here has an interval: the baseline's figures are bounds, so every change is marked ${markup.code(WITHIN_NOISE)}.`,
    );
  } else if (changed) {
    const changes = columns.flatMap((c) => Object.values(c.changes ?? {}));
    notes.push(noiseNote(group.noise, changes, markup));
  }
  if (showsCost(group)) notes.push(markup.escape(COST_NOTE));
  return notes;
}

/**
 * The line under a table of changes against a baseline: how its changes were judged (`family`,
 * of every change of `judgedOver`; absent when none could be paired by round), what `~` marks,
 * and that the `extremes` shown are not compared.
 */
export function noiseNote(
  family: DifferenceFamily | undefined,
  changes: readonly Difference[],
  markup: Markup,
  { judgedOver = "the run's tables", extremes = EXTREMES_NOTE } = {},
): string {
  return [familyNote(family, changes, markup, judgedOver), stolenNote(changes), extremes]
    .filter((text) => text !== "")
    .join(" ");
}

/** How many rounds steal took out of the changes that hold it; empty when it took none. */
function stolenNote(changes: readonly Difference[]): string {
  const hit = changes.filter((d) => d.stolen > 0);
  if (hit.length === 0) return "";
  const most = Math.max(...hit.map((d) => d.stolen));
  return `Steal above the noise limit left up to ${plural(most, "round")} out of the tests of ${plural(hit.length, "change")} whose figures hold stolen time (see Steal above).`;
}

/** How the changes of `judgedOver` were judged, and what `~` marks. */
function familyNote(
  family: DifferenceFamily | undefined,
  changes: readonly Difference[],
  { code }: Markup,
  judgedOver: string,
): string {
  const mark = code(WITHIN_NOISE);
  if (family === undefined) {
    return `No change here has an interval: no repetitions of these figures are paired by round with the baseline's (single runs, cells measured apart: other shards or a --resume, or figures that are bounds), so every change is marked ${mark}.`;
  }
  const withInterval = changes.filter((d) => d.ci !== undefined).length;
  const needed = family.roundsNeeded;
  const rule = `Holm over the ${plural(family.tests, "change")} of ${judgedOver} at alpha ${formatAlpha(family.alpha)}`;
  if (withInterval === 0) {
    return `With ${plural(family.rounds, "repetition")} per proxy no change here has an interval (${rule} needs ${needed}: --repetitions ${needed}), so every change is marked ${mark}: not told apart from noise.`;
  }
  const missing = changes.length - withInterval;
  return (
    `Each change is paired by round with the baseline over ${plural(family.rounds, "round")}, with its interval from low to high (Hodges-Lehmann; ${rule}: at most a ${formatAlpha(family.alpha * 100)}% chance that any change not marked ${mark} is noise). ${mark}: within noise, its interval includes 0 or it is under ${family.thresholdPct}%.` +
    (missing > 0
      ? ` ${plural(missing, "change")} without an interval (${needed} repetitions would give every one).`
      : "")
  );
}

function renderGroupMarkdown(group: ReportGroup, options: TableOptions): string {
  return [
    heading(3, groupTitle(group, MARKDOWN)),
    groupIntro(group, MARKDOWN).join(" "),
    renderComparisonTableMarkdown(group, options),
    renderLatencyTableMarkdown(group, "Proxy", options),
    renderGroupNotes(group).join("\n"),
  ]
    .filter((part) => part !== "")
    .join("\n\n");
}

function renderHeaderMarkdown(model: ReportModel): string {
  const lines = [heading(2, escapeMarkdown(model.header.title)), ""];
  for (const [label, value] of model.header.facts) lines.push(`- **${label}**: ${escapeMarkdown(value)}`);
  const skipped = model.header.skipped.map((s) => skippedText(s, MARKDOWN));
  if (skipped.length > 0) lines.push("", titledList("Skipped:", skipped));
  return lines.join("\n");
}

/** A report model as markdown: the header, then each scenario's two tables and notes. */
export function renderReportModelMarkdown(model: ReportModel, options: TableOptions = {}): string {
  const parts = [renderHeaderMarkdown(model)];
  if (model.groups.length === 0) parts.push("No cells were measured.");
  for (const group of model.groups) parts.push(renderGroupMarkdown(group, options));
  return `${parts.join("\n\n")}\n`;
}

/** The markdown report of a results.json: pure, everything it shows comes from its arguments. */
export function renderMarkdownReport(results: Results, options: ReportOptions & TableOptions = {}): string {
  return renderReportModelMarkdown(buildReport(results, options), options);
}
