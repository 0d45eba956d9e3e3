import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Results } from "../results/schema.js";
import { escapeHtml, HTML, inlineScript, jsonForScript } from "../render/escape.js";
import { formatMs } from "../render/format.js";
import { cellText, changeText, comparisonGrid, deltaText, formatMetric } from "./cells.js";
import { changeAndCostNotes, groupIntro, groupTitle, skippedText, type TableOptions } from "./markdown.js";
import { BASE_STYLE, htmlPage } from "../render/page.js";
import { buildReport, spanOf, type ReportGroup, type ReportModel, type ReportOptions } from "./model.js";
import { LATENCY_LABELS, latencyTable, type TableCell } from "./tables.js";

export interface HtmlReportOptions extends ReportOptions, TableOptions {
  /** Chart.js UMD source to inline; read from the installed chart.js package when absent. */
  chartJs?: string;
}

function percentilePoints(column: ReportGroup["columns"][number]): Array<{ label: string; value: number }> {
  const values = column.values;
  if (values === undefined) return [];
  const points = new Map<number, number>();
  const lat = values.latencyMs;
  for (const p of [50, 90, 95, 99] as const) {
    const value = lat[`p${p}`];
    if (value !== undefined) points.set(p, value);
  }
  for (const [key, value] of Object.entries(values.percentilesMs)) {
    const p = Number(key);
    if (Number.isFinite(p) && p > 0 && p < 100) points.set(p, value);
  }
  if (lat.max !== undefined) points.set(100, lat.max);
  return [...points.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([p, value]) => ({ label: p === 100 ? "max" : `p${p}`, value }));
}

/** What the page's script draws, per group: only ok columns, each with its interval. */
export function chartData(model: ReportModel) {
  return {
    groups: model.groups.map((group, i) => {
      const ok = group.columns.filter((c) => c.status === "ok" && c.values !== undefined);
      return {
        id: `g${i}`,
        title: [group.scenario, group.load?.label, group.variant].filter((t) => t !== undefined).join(" · "),
        proxies: ok.map((c) => c.proxy),
        rps: ok.map((c) => c.values?.rps ?? 0),
        rpsRange: ok.map((c) => spanOf(c.values?.perRepetition.rps ?? [0])),
        p99: ok.map((c) => c.values?.latencyMs.p99 ?? null),
        p99Range: ok.map((c) => {
          const xs = c.values?.perRepetition.p99Ms ?? [];
          return xs.length ? spanOf(xs) : null;
        }),
        percentiles: ok.map((c) => ({ proxy: c.proxy, points: percentilePoints(c) })),
      };
    }),
  };
}

function cellHtml(cell: TableCell, format: (v: number) => string, spread?: boolean): string {
  const text = escapeHtml(cellText(cell, format, spread));
  return cell.status === undefined ? text : `<span class="status">${text}</span>`;
}

/** The class of a change: greyed when within noise. */
function changeClass(cell: TableCell, kind: "pct" | "delta"): string {
  return cell.withinNoise === true ? `${kind} noise` : kind;
}

function comparisonTableHtml(group: ReportGroup, { spread }: TableOptions): string {
  const { proxies, rows } = comparisonGrid(group, {
    value: (cell, metric) => `<td>${cellHtml(cell, (v) => formatMetric(metric, v), spread)}</td>`,
    change: (cell) => `<td class="${changeClass(cell, "pct")}">${escapeHtml(changeText(cell))}</td>`,
  });
  const head = proxies.map((p) => `<th>${escapeHtml(p)}</th>`).join("");
  const body = rows.map((r) => `<tr><th scope="row">${escapeHtml(r.label)}</th>${r.cells.join("")}</tr>`);
  return `<table class="comparison"><thead><tr><th>metric</th>${head}</tr></thead><tbody>${body.join("")}</tbody></table>`;
}

function latencyTableHtml(group: ReportGroup, { spread }: TableOptions): string {
  const table = latencyTable(group);
  const head = ["<th>Proxy</th>", ...table.stats.map((s) => `<th>${LATENCY_LABELS[s]}</th>`)].join("");
  const rows = table.rows.map((row) => {
    const cells = row.cells.map((cell) => {
      const delta = deltaText(cell);
      const span = delta && `<br><span class="${changeClass(cell, "delta")}">${escapeHtml(delta)}</span>`;
      return `<td>${cellHtml(cell, formatMs, spread)}${span}</td>`;
    });
    return `<tr><th scope="row">${escapeHtml(row.proxy)}</th>${cells.join("")}</tr>`;
  });
  return `<table class="latency"><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function notesHtml(group: ReportGroup): string {
  const items: string[] = [];
  const ok = group.columns.filter((c) => c.status === "ok");
  const each = ok.map((c) => `${escapeHtml(c.proxy)}: ${c.repetitions}`).join(", ");
  const medians = `Values are medians over the repetitions (${each}); whiskers show the range across repetitions.`;
  if (group.valuesNote !== undefined) items.push(escapeHtml(group.valuesNote));
  else if (ok.length > 0) items.push(medians);
  items.push(...changeAndCostNotes(group, HTML));
  for (const c of group.columns) {
    if (c.status === "ok") continue;
    const reasons = c.reasons.length ? c.reasons.map(escapeHtml).join("; ") : "no reason given";
    items.push(
      `<strong>${escapeHtml(c.proxy)}</strong> is <span class="status">${escapeHtml(c.status)}</span> (not drawn): ${reasons}`,
    );
  }
  return items.length ? `<ul class="notes">${items.map((i) => `<li>${i}</li>`).join("")}</ul>` : "";
}

/** Canvases for the page script; none when no proxy of the group has numbers to draw. */
function chartsHtml(group: ReportGroup, id: string): string {
  if (!group.columns.some((c) => c.status === "ok" && c.values !== undefined)) {
    return `<p class="status">Nothing to draw: no proxy has a valid measurement here.</p>`;
  }
  return `<div class="charts">
<figure><canvas id="${id}-rps" width="560" height="300" role="img" aria-label="Requests per second"></canvas></figure>
<figure><canvas id="${id}-p99" width="560" height="300" role="img" aria-label="p99 latency"></canvas></figure>
<figure><canvas id="${id}-pct" width="560" height="300" role="img" aria-label="Latency percentiles"></canvas></figure>
</div>`;
}

function groupHtml(group: ReportGroup, id: string, options: TableOptions): string {
  return `<section class="group" id="${id}">
<h2>${groupTitle(group, HTML)}</h2>
<p>${groupIntro(group, HTML).join(" ")}</p>
${chartsHtml(group, id)}
${comparisonTableHtml(group, options)}
${latencyTableHtml(group, options)}
${notesHtml(group)}
</section>`;
}

/** The page script's bar chart of one chartData series (`key`, its range `${key}Range`), with whiskers. */
function barChart(key: "rps" | "p99", label: string, title: string): string {
  return `    new Chart(document.getElementById(g.id + "-${key}"), {
      type: "bar",
      data: { labels: g.proxies, datasets: [{ label: "${label}", data: g.${key}, backgroundColor: colors, whiskers: g.${key}Range }] },
      options: Object.assign({}, common, { plugins: { legend: { display: false }, title: { display: true, text: "${title} (median, range across repetitions)" } }, scales: { y: { beginAtZero: true, suggestedMax: top(g.${key}Range) } } }),
      plugins: [whiskers]
    });
    drawn++;`;
}

/** Draws the charts from the embedded data; whiskers come from a small plugin of ours. */
const PAGE_SCRIPT = `
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
  var whiskers = {
    id: "whiskers",
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      var scale = chart.scales.y;
      chart.data.datasets.forEach(function (dataset, di) {
        var ranges = dataset.whiskers;
        if (!ranges) return;
        chart.getDatasetMeta(di).data.forEach(function (bar, i) {
          var r = ranges[i];
          if (!r) return;
          var top = scale.getPixelForValue(r[1]);
          var bottom = scale.getPixelForValue(r[0]);
          var half = Math.max(4, (bar.width || 12) / 4);
          ctx.save();
          ctx.strokeStyle = "#222";
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          ctx.moveTo(bar.x, top); ctx.lineTo(bar.x, bottom);
          ctx.moveTo(bar.x - half, top); ctx.lineTo(bar.x + half, top);
          ctx.moveTo(bar.x - half, bottom); ctx.lineTo(bar.x + half, bottom);
          ctx.stroke();
          ctx.restore();
        });
      });
    }
  };
  var common = { animation: false, responsive: false, plugins: { legend: { display: false } } };
  // the axis must reach the top of the highest whisker, not only of the highest bar
  var top = function (ranges) {
    return ranges.reduce(function (m, r) { return r ? Math.max(m, r[1]) : m; }, 0);
  };
  var drawn = 0;
  data.groups.forEach(function (g) {
    if (g.proxies.length === 0) return;
    var colors = g.proxies.map(function (_, i) { return palette[i % palette.length]; });
${barChart("rps", "Requests/sec", "Requests/sec")}
${barChart("p99", "p99 (ms)", "p99 latency, ms")}
    var labels = [];
    g.percentiles.forEach(function (p) { p.points.forEach(function (pt) { if (labels.indexOf(pt.label) < 0) labels.push(pt.label); }); });
    var order = function (l) { return l === "max" ? 100 : Number(l.slice(1)); };
    labels.sort(function (a, b) { return order(a) - order(b); });
    new Chart(document.getElementById(g.id + "-pct"), {
      type: "line",
      data: {
        labels: labels,
        datasets: g.percentiles.map(function (p, i) {
          var byLabel = {};
          p.points.forEach(function (pt) { byLabel[pt.label] = pt.value; });
          return { label: p.proxy, data: labels.map(function (l) { return l in byLabel ? byLabel[l] : null; }), borderColor: colors[i], backgroundColor: colors[i], spanGaps: true };
        })
      },
      options: Object.assign({}, common, { plugins: { legend: { display: true }, title: { display: true, text: "Latency by percentile, ms" } }, scales: { x: { title: { display: true, text: "percentile" } }, y: { beginAtZero: true, title: { display: true, text: "ms" } } } })
    });
    drawn++;
  });
  document.body.setAttribute("data-charts", String(drawn));
})();
`;

const STYLE = `${BASE_STYLE}thead th, th[scope=row] { text-align: left; background: #f6f6f6; }
.status { color: #b00020; font-weight: bold; }
.delta, .pct { color: #555; }
.noise { color: #aaa; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 1em; }
dt { font-weight: bold; }
`;

/**
 * The source of Chart.js's UMD bundle, read from the installed package at run time so the page
 * can inline it (no CDN: the report opens offline).
 */
function loadChartJsSource(): string {
  const main = createRequire(import.meta.url).resolve("chart.js");
  return readFileSync(path.join(path.dirname(main), "chart.umd.min.js"), "utf8");
}

/** A report model as one self-contained HTML page (Chart.js and the data inlined). */
export function renderHtmlReportModel(model: ReportModel, options: HtmlReportOptions = {}): string {
  const chartJs = options.chartJs ?? loadChartJsSource();
  const facts = model.header.facts
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join("\n");
  const skipped = model.header.skipped.length
    ? `<h3>Skipped</h3><ul>${model.header.skipped.map((s) => `<li>${skippedText(s, HTML)}</li>`).join("")}</ul>`
    : "";
  const groups = model.groups.map((g, i) => groupHtml(g, `g${i}`, options)).join("\n");
  return htmlPage({
    title: model.header.title,
    style: STYLE,
    dataImages: true,
    body: `<dl>
${facts}
</dl>
${skipped}
${groups || "<p>No cells were measured.</p>"}
<script type="application/json" id="report-data">${jsonForScript(chartData(model))}</script>
<script>${inlineScript(chartJs)}</script>
<script>${PAGE_SCRIPT}</script>`,
  });
}

/** The HTML report of a results.json. Pure but for reading Chart.js when `chartJs` is not given. */
export function renderHtmlReport(results: Results, options: HtmlReportOptions = {}): string {
  return renderHtmlReportModel(buildReport(results, options), options);
}
