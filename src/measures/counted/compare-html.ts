import { escapeHtml, jsonForScript } from "../../render/escape.js";
import { BASE_STYLE, htmlPage } from "../../render/page.js";
import type { CountedCellComparison, CountedComparison } from "./compare.js";
import {
  headline,
  variantsText,
  VERDICT_COLUMNS,
  verdictRows,
  verdictRule,
  WHERE_TABLES,
} from "./compare-markdown.js";
import { formatCount, signed } from "./report.js";
import { byLargestChange, type FunctionChange } from "./where.js";

/**
 * The HTML of a counted comparison: the verdicts, then per compared cell every function whose
 * instructions per request (self) changed, as an icicle chart (all changes, then each object
 * file, then its functions; widths proportional to the absolute change, red for more work, blue
 * for less), and the full tables. One self-contained page: no network, a strict CSP, every name
 * escaped (the chart draws names on a canvas, never as markup).
 */

/** A function's change, or the sum of an object file's or of all (`object`: a function's file). */
export interface IcicleNode extends FunctionChange {
  /** 0: every changed function; 1: an object file (binary or library); 2: a function. */
  depth: 0 | 1 | 2;
  /** Left and right edges, as fractions of the chart's width. */
  x0: number;
  x1: number;
}

const UNKNOWN_OBJECT = "(unknown object)";

/** The changes' base, head and change summed, as a node named `name` at `depth`. */
function total(name: string, depth: IcicleNode["depth"], changes: readonly FunctionChange[]) {
  const sum = (figure: "base" | "head" | "delta") => changes.reduce((a, c) => a + c[figure], 0);
  return { name, depth, base: sum("base"), head: sum("head"), delta: sum("delta") };
}

/** The icicle of self changes, pure: objects by their total absolute change, largest first. */
export function icicleLayout(changes: readonly FunctionChange[]): IcicleNode[] {
  const size = (cs: readonly FunctionChange[]) => cs.reduce((a, c) => a + Math.abs(c.delta), 0);
  const all = size(changes);
  if (all === 0) return [];
  const byObject = new Map<string, FunctionChange[]>();
  const objectOf = (c: FunctionChange) => c.object ?? UNKNOWN_OBJECT;
  for (const c of changes) byObject.set(objectOf(c), [...(byObject.get(objectOf(c)) ?? []), c]);
  const objects = [...byObject.entries()].sort((a, b) => size(b[1]) - size(a[1]) || a[0].localeCompare(b[0]));
  const nodes: IcicleNode[] = [{ ...total("all changed functions", 0, changes), x0: 0, x1: 1 }];
  let x = 0;
  for (const [object, fns] of objects) {
    const width = size(fns) / all;
    nodes.push({ ...total(object, 1, fns), x0: x, x1: x + width });
    let fx = x;
    for (const f of [...fns].sort(byLargestChange)) {
      const { name, base, head, delta } = f;
      const w = Math.abs(delta) / all;
      nodes.push({ name, depth: 2, x0: fx, x1: fx + w, base, head, delta, object });
      fx += w;
    }
    x += width;
  }
  return nodes;
}

function verdictTableRows(c: CountedComparison): string {
  return verdictRows(c)
    .map(({ id, m, figures }) =>
      [
        `<tr><th scope="row">${escapeHtml(id)}</th>`,
        `<td class="l">${escapeHtml(m.label)}</td>`,
        ...figures.map((figure) => `<td>${figure}</td>`),
        `<td class="l ${m.verdict}">${escapeHtml(m.verdict)}${m.why ? `: ${escapeHtml(m.why)}` : ""}</td></tr>`,
      ].join(""),
    )
    .join("\n");
}

function functionTable(title: string, changes: readonly FunctionChange[]): string {
  if (changes.length === 0) return `<p>${escapeHtml(title)}: no function changed.</p>`;
  const rows = changes
    .map(
      (f) =>
        `<tr><td class="l">${escapeHtml(f.name)}</td><td class="l">${escapeHtml(f.object ?? "")}</td>` +
        `<td>${formatCount(f.base)}</td><td>${formatCount(f.head)}</td><td>${signed(f.delta, 1)}</td></tr>`,
    )
    .join("\n");
  return (
    `<details><summary>${escapeHtml(title)}: ${changes.length} functions</summary>` +
    `<table><thead><tr><th>function</th><th>object</th><th>base</th><th>head</th><th>change</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></details>`
  );
}

function cellSection(cell: CountedCellComparison, index: number): string {
  const self = cell.where?.self ?? [];
  const chart =
    icicleLayout(self).length > 0
      ? `<figure><canvas id="icicle-${index}" class="icicle" width="1200" height="90"></canvas>` +
        `<p class="tip" id="icicle-${index}-tip"></p>` +
        `<figcaption>Self instructions per request that changed, ${self.length} functions: ` +
        `width by the size of the change, <span class="more-work">red: more</span>, ` +
        `<span class="less-work">blue: less</span>. Hover for the figures.</figcaption></figure>`
      : "<p>No function's instructions per request changed.</p>";
  return [
    `<h2>Where it went: ${escapeHtml(cell.id)}</h2>`,
    chart,
    ...WHERE_TABLES.map(({ kind, title }) => functionTable(title, cell.where?.[kind] ?? [])),
  ].join("\n");
}

/** What the page's script draws: per cell with changes, its canvas id and icicle nodes. */
export function icicleData(c: CountedComparison): { charts: Array<{ id: string; nodes: IcicleNode[] }> } {
  return {
    charts: c.cells.flatMap((cell, i) => {
      const nodes = icicleLayout(cell.where?.self ?? []);
      return nodes.length > 0 ? [{ id: `icicle-${i}`, nodes }] : [];
    }),
  };
}

const PAGE_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById("icicle-data").textContent);
  var ROW = 28;
  var fmt = function (x) { return x.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 }); };
  var drawn = 0;
  data.charts.forEach(function (chart) {
    var canvas = document.getElementById(chart.id);
    var tip = document.getElementById(chart.id + "-tip");
    var ctx = canvas.getContext("2d");
    var width = canvas.width;
    var max = chart.nodes.reduce(function (m, n) { return n.depth === 2 ? Math.max(m, Math.abs(n.delta)) : m; }, 0) || 1;
    var colour = function (n) {
      if (n.depth === 0) return "#9e9e9e";
      var strength = n.depth === 2 ? Math.abs(n.delta) / max : 0.5;
      var light = 85 - 35 * Math.min(1, strength);
      return n.delta >= 0 ? "hsl(4, 75%, " + light + "%)" : "hsl(215, 75%, " + light + "%)";
    };
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    chart.nodes.forEach(function (n) {
      var x = n.x0 * width, w = Math.max(1, (n.x1 - n.x0) * width), y = n.depth * ROW;
      ctx.fillStyle = colour(n);
      ctx.fillRect(x, y, w, ROW - 2);
      if (w > 40) {
        ctx.save();
        ctx.beginPath(); ctx.rect(x, y, w - 2, ROW - 2); ctx.clip();
        ctx.fillStyle = "#111";
        ctx.fillText(n.name + " " + (n.delta >= 0 ? "+" : "") + fmt(n.delta), x + 4, y + ROW / 2);
        ctx.restore();
      }
    });
    canvas.addEventListener("mousemove", function (e) {
      var r = canvas.getBoundingClientRect();
      var fx = (e.clientX - r.left) / r.width, depth = Math.floor((e.clientY - r.top) * canvas.height / r.height / ROW);
      var hit = chart.nodes.filter(function (n) { return n.depth === depth && fx >= n.x0 && fx < n.x1; })[0];
      tip.textContent = hit ? hit.name + (hit.object && hit.depth === 2 ? " (" + hit.object + ")" : "") + ": " + fmt(hit.base) + " -> " + fmt(hit.head) + " instructions/request (" + (hit.delta >= 0 ? "+" : "") + fmt(hit.delta) + ")" : "";
    });
    drawn++;
  });
  document.body.setAttribute("data-charts", String(drawn));
})();
`;

const STYLE = `${BASE_STYLE}thead th, th[scope=row], .l { text-align: left; }
thead th, th[scope=row] { background: #f6f6f6; }
.more-work { color: #b00020; font-weight: bold; }
.less-work { color: #1a4fa0; font-weight: bold; }
canvas.icicle { width: 100%; max-width: 1200px; border: 1px solid #ddd; }
.tip { min-height: 1.4em; font-family: ui-monospace, monospace; }
figure { margin: 1em 0; }
`;

/** The comparison as one self-contained HTML page. Pure. */
export function renderCountedComparisonHtml(c: CountedComparison): string {
  const variants = variantsText(c, escapeHtml);
  const notCompared = c.notCompared.length
    ? `<h2>Not compared</h2><ul>${c.notCompared.map((n) => `<li>${escapeHtml(n.id)}: ${escapeHtml(n.why)}</li>`).join("")}</ul>`
    : "";
  return htmlPage({
    title: headline(c),
    style: STYLE,
    body: `${variants === undefined ? "" : `<p>${variants}</p>`}
<p>${verdictRule(c)}</p>
<table><thead><tr>${VERDICT_COLUMNS.map((name) => `<th>${name}</th>`).join("")}</tr></thead>
<tbody>
${verdictTableRows(c)}
</tbody></table>
${c.cells.map(cellSection).join("\n")}
${notCompared}
<script type="application/json" id="icicle-data">${jsonForScript(icicleData(c))}</script>
<script>${PAGE_SCRIPT}</script>`,
  });
}
