import { escapeMarkdown } from "../../render/escape.js";
import { heading, titledList } from "../../render/markdown.js";
import { verdictCounts, type CountedCellComparison, type CountedComparison } from "./compare.js";
import { formatCount, signed } from "./report.js";
import type { FunctionChange } from "./where.js";

/** Markdown of a counted comparison, for the terminal and a PR comment. Pure. */

const VERDICT_TEXT = {
  "more-work": "**more work**",
  "less-work": "**less work**",
  unchanged: "unchanged",
  inconclusive: "inconclusive",
} as const;

function cellName(id: string): string {
  const slash = id.indexOf("/");
  if (slash < 0) return escapeMarkdown(id);
  return `${escapeMarkdown(id.slice(0, slash))} · **${escapeMarkdown(id.slice(slash + 1))}**`;
}

/** The verdict table's columns, and its rows (id, metric, base, head, change, spread, n): markdown and HTML. */
export const VERDICT_COLUMNS = ["Cell", "Metric", "Base", "Head", "Change", "Spread", "n", "Verdict"];

export function verdictRows(c: CountedComparison) {
  return c.cells.flatMap(({ id, metrics }) =>
    metrics.map((m) => {
      const figures = [formatCount(m.baseMedian), formatCount(m.headMedian), `${signed(m.changePct)}%`];
      return { id, m, figures: [...figures, `${m.spreadPct.toFixed(3)}%`, `${m.baseN} / ${m.headN}`] };
    }),
  );
}

/** What a verdict needs, said above the table. */
export function verdictRule(c: CountedComparison): string {
  return (
    `A change counts when it exceeds both ${c.floorPct}% and ${c.spreadFactor} x the spread ((max - min) / median) ` +
    "of the repetitions. Values are medians per request."
  );
}

/** The tables of where it went, titled: self, then inclusive. */
export const WHERE_TABLES = [
  { kind: "self", title: "Self (in the function itself)" },
  { kind: "inclusive", title: "Inclusive (with what it calls)" },
] as const;

function functionTable(title: string, changes: FunctionChange[]): string[] {
  if (changes.length === 0) return [`${title}: no function changed.`, ""];
  const rows = changes.map((c) => {
    const where = c.object === undefined ? "" : ` (${escapeMarkdown(c.object)})`;
    return `| ${escapeMarkdown(c.name)}${where} | ${formatCount(c.base)} | ${formatCount(c.head)} | ${signed(c.delta, 1)} |`;
  });
  return [title, "", "| function | base | head | change |", "| :-- | --: | --: | --: |", ...rows, ""];
}

/** The functions whose instructions per request changed most, in a collapsed block. */
function renderWhereItWent(cell: CountedCellComparison): string[] {
  if (!cell.where) return [];
  return [
    "<details>",
    `<summary>Where it went: ${cellName(cell.id)} (instructions per request, top ${cell.where.self.length})</summary>`,
    "",
    ...WHERE_TABLES.flatMap(({ kind, title }) => functionTable(title, cell.where?.[kind] ?? [])),
    "</details>",
  ];
}

/** The comparison's title: its verdicts counted. */
export function headline(c: CountedComparison): string {
  const n = verdictCounts(c);
  return (
    `proxybench compare (instructions): ${n["more-work"]} more work, ${n["less-work"]} less work, ` +
    `${n.unchanged} unchanged, ${n.inconclusive} inconclusive`
  );
}

/** "Variants of one run: head against base.", for a comparison of one run's variants. */
export function variantsText(c: CountedComparison, escape: (text: string) => string): string | undefined {
  return c.variants && `Variants of one run: ${escape(c.variants.head)} against ${escape(c.variants.base)}.`;
}

/** `headingLevel`: of the title heading (2 = `##`); a PR comment nests it under its own section. */
export function renderCountedComparison(c: CountedComparison, headingLevel = 2): string {
  const variants = variantsText(c, escapeMarkdown);
  const lines = [
    heading(headingLevel, headline(c)),
    "",
    ...(variants === undefined ? [] : [variants, ""]),
    verdictRule(c),
    "",
    `| ${VERDICT_COLUMNS.join(" | ")} |`,
    "| :-- | :-- | --: | --: | --: | --: | --: | :-- |",
    ...verdictRows(c).map(({ id, m, figures }) =>
      ["", cellName(id), m.label, ...figures, VERDICT_TEXT[m.verdict], ""].join(" | ").trim(),
    ),
    "",
  ];
  for (const cell of c.cells) lines.push(...renderWhereItWent(cell), "");
  const notCompared = c.notCompared.map((n) => `${cellName(n.id)}: ${escapeMarkdown(n.why)}`);
  if (notCompared.length > 0) lines.push(titledList("Not compared:", notCompared));
  return `${lines.join("\n").trimEnd()}\n`;
}
