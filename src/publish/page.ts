/**
 * The history page written next to data.js on gh-pages. It is static: every name (suite, proxy,
 * commit message, repository) comes from data.js at run time and reaches the page through
 * `textContent` and chart labels only, never as markup, so a crafted name cannot inject HTML.
 * Chart.js is loaded from a copy written next to it, so the page also works offline. The change
 * points of changes.js, when it is there, are marked on their series (a larger point and a dashed
 * line, in the series' colour) and listed under the chart with a link to their commit range.
 */

import { CHANGES_JS_FILE } from "./changesjs.js";

/** Present in every page we write; a page without it is someone else's and is left alone. */
const PAGE_MARKER = '<meta name="generator" content="proxybench history page">';

export const CHART_JS_FILE = "chart.umd.min.js";

export function isOurPage(html: string): boolean {
  return html.includes(PAGE_MARKER);
}

export function renderIndexHtml(): string {
  return `<!doctype html>
<html lang="en">
${PAGE_HEAD}
<body>
${PAGE_MARKUP}
<script>
(function () {
  "use strict";
${SCRIPT_DATA}
${SCRIPT_SERIES}
${SCRIPT_CHANGES}
${SCRIPT_CHARTS}
${SCRIPT_FILTER}
  window.proxybenchCharts = charts;
})();
</script>
</body>
</html>
`;
}

/** The page's head: its marker, title and styles. */
const PAGE_HEAD = `<head>
<meta charset="utf-8">
${PAGE_MARKER}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Benchmark history</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1f2328; }
  header { margin-bottom: 1rem; }
  #filter label { margin-right: 1rem; white-space: nowrap; }
  .chart { max-width: 960px; margin: 1.5rem 0; }
  .chart h2 { font-size: 1rem; margin: 0 0 .5rem; }
  .plot { position: relative; height: 320px; }
  .muted { color: #59636e; font-size: .9rem; }
  .changes { margin: .5rem 0 0; padding-left: 1.2rem; font-size: .9rem; }
  .changes .regression { color: #cf222e; }
  .changes .improvement { color: #1a7f37; }
</style>
</head>`;

/** The page's markup: the header the script fills in, where the charts go, the scripts it loads. */
const PAGE_MARKUP = `<header>
  <h1>Benchmark history</h1>
  <p class="muted"><a id="repo" rel="noopener"></a> <span id="updated"></span></p>
  <div id="filter" aria-label="Proxies shown"></div>
</header>
<main id="charts"></main>
<noscript>This page needs JavaScript to draw its charts; the data is in data.js.</noscript>
<script src="${CHART_JS_FILE}"></script>
<script src="data.js"></script>
<script src="${CHANGES_JS_FILE}"></script>`;

/**
 * The script's start: the data from data.js (or a message when there is none), the repository
 * and the date of the last update.
 */
const SCRIPT_DATA = `  var data = window.BENCHMARK_DATA;
  var main = document.getElementById("charts");
  function el(tag, text) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; return e; }
  if (!data || typeof data !== "object" || !data.entries || typeof window.Chart !== "function") {
    main.appendChild(el("p", "No benchmark data (data.js) or chart library (${CHART_JS_FILE}) could be loaded."));
    return;
  }
  var safeUrl = function (u) { return typeof u === "string" && /^https?:\\/\\//i.test(u) ? u : undefined; };
  var repo = document.getElementById("repo");
  repo.textContent = String(data.repoUrl || "");
  if (safeUrl(data.repoUrl)) repo.href = data.repoUrl;
  if (typeof data.lastUpdate === "number") {
    document.getElementById("updated").textContent = "updated " + new Date(data.lastUpdate).toISOString();
  }`;

/** The charts drawn, one color per series (proxy) in all of them, a bench name as series and metric. */
const SCRIPT_SERIES = `  var palette = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#e16f24", "#6e7781",
                 "#a40e26", "#0550ae", "#116329", "#953800"];
  var seriesNames = [];
  var charts = [];
  function colorOf(name) {
    var i = seriesNames.indexOf(name);
    if (i < 0) { seriesNames.push(name); i = seriesNames.length - 1; }
    return palette[i % palette.length];
  }
  function splitName(name) {
    var cut = String(name).lastIndexOf(" ");
    return cut > 0 ? [name.slice(0, cut), name.slice(cut + 1)] : [String(name), String(name)];
  }`;

/**
 * The chart plugin that draws a chart's marks: a dashed line through each change point of a shown
 * series, in its colour, labelled with the change (red for a regression, green for an improvement).
 */
const SCRIPT_CHANGE_LINES = `  function changeLines(marks) {
    return { id: "proxybenchChanges", afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx, area = chart.chartArea, x = chart.scales.x;
      marks.forEach(function (k) {
        var i = chart.data.datasets.findIndex(function (d) { return d.label === k.series; });
        if (i < 0 || !chart.isDatasetVisible(i)) return;
        var px = x.getPixelForValue(k.index);
        ctx.save();
        ctx.strokeStyle = chart.data.datasets[i].borderColor;
        ctx.lineWidth = 1.5;
        ctx.setLineDash([5, 4]);
        ctx.beginPath(); ctx.moveTo(px, area.top); ctx.lineTo(px, area.bottom); ctx.stroke();
        ctx.fillStyle = k.change.regression ? "#cf222e" : "#1a7f37";
        ctx.font = "bold 12px system-ui, sans-serif";
        ctx.textAlign = px > area.right - 60 ? "right" : "left";
        ctx.fillText(pctText(k.change), px + (ctx.textAlign === "left" ? 4 : -4), area.top + 12);
        ctx.restore();
      });
    } };
  }`;

/**
 * The change points of changes.js (none when it is absent) that fall on a chart: each found by
 * its series (suite and bench) and placed at the entry of its first commit after the change. A
 * commit range links to GitHub only when data.js's repoUrl is a repository's https address and
 * both ends are commit shas (github/identifiers.ts, `compareUrl`, checks the same way).
 */
const SCRIPT_CHANGES = `  var changes = Array.isArray(window.BENCHMARK_CHANGES) ? window.BENCHMARK_CHANGES : [];
  var repoBase = (function (u) {
    var t = String(u || "").replace(/\\/+$/, "").replace(/\\.git$/, "");
    return /^https:\\/\\/[A-Za-z0-9.-]+(:\\d+)?\\/[A-Za-z0-9_.-]+\\/[A-Za-z0-9_.-]+$/.test(t) ? t : undefined;
  })(data.repoUrl);
  function isSha(s) { return typeof s === "string" && /^[0-9a-fA-F]{4,64}$/.test(s); }
  function compareLink(c) {
    return repoBase && isSha(c.before.id) && isSha(c.after.id) ? repoBase + "/compare/" + c.before.id + "..." + c.after.id : undefined;
  }
  function pctText(c) { return (c.changePct > 0 ? "+" : "") + c.changePct.toFixed(1) + "%"; }
  function describeChange(c) {
    return pctText(c) + " (p " + String(Number(c.pValue.toPrecision(2))) + ") " + (c.regression ? "regression" : "improvement");
  }
  function isChange(c) {
    return c && typeof c === "object" && c.before && c.after && typeof c.changePct === "number" &&
      typeof c.pValue === "number" && isFinite(c.changePct) && isFinite(c.pValue);
  }
  function marksFor(suite, metric, entries) {
    var found = [];
    changes.forEach(function (s) {
      if (!s || s.suite !== suite || !Array.isArray(s.changes)) return;
      var parts = splitName(s.bench);
      if (parts[1] !== metric) return;
      s.changes.filter(isChange).forEach(function (c) {
        var at = entries.findIndex(function (e) { return e.commit && e.commit.id === c.after.id; });
        if (at >= 0) found.push({ series: parts[0], index: at, change: c });
      });
    });
    return found;
  }
  function markAt(marks, series, index) {
    return marks.find(function (k) { return k.series === series && k.index === index; });
  }
${SCRIPT_CHANGE_LINES}`;

/** Under a chart, its change points: the series, the change, and its commit range as a link. */
const SCRIPT_CHANGE_LIST = `      if (marks.length) {
        var list = el("ul");
        list.className = "changes";
        marks.forEach(function (k) {
          var item = el("li");
          var what = el("span", k.series + ": " + describeChange(k.change));
          what.className = k.change.regression ? "regression" : "improvement";
          item.appendChild(what);
          item.appendChild(document.createTextNode(" "));
          var range = String(k.change.before.id).slice(0, 7) + "..." + String(k.change.after.id).slice(0, 7);
          var link = el("a", range);
          var href = compareLink(k.change);
          if (href) { link.href = href; link.rel = "noopener"; link.target = "_blank"; }
          item.appendChild(link);
          list.appendChild(item);
        });
        section.appendChild(list);
      }`;

/**
 * A suite's entries as series per metric: each metric's unit and each series' value per entry
 * (null where the entry has none).
 */
const SCRIPT_SERIES_BY_METRIC = `    var entries = Array.isArray(data.entries[suite]) ? data.entries[suite] : [];
    var metrics = [];
    var byMetric = {};
    entries.forEach(function (entry, index) {
      (entry.benches || []).forEach(function (bench) {
        var parts = splitName(bench.name);
        var metric = parts[1];
        if (!Object.prototype.hasOwnProperty.call(byMetric, metric)) {
          byMetric[metric] = { unit: bench.unit, series: {}, order: [] };
          metrics.push(metric);
        }
        var m = byMetric[metric];
        if (!Object.prototype.hasOwnProperty.call(m.series, parts[0])) {
          m.series[parts[0]] = entries.map(function () { return null; });
          m.order.push(parts[0]);
        }
        m.series[parts[0]][index] = typeof bench.value === "number" ? bench.value : null;
      });
    });`;

/** A metric's section: its heading and the canvas its chart draws on. */
const SCRIPT_CHART_SECTION = `      var m = byMetric[metric];
      var section = el("section");
      section.className = "chart";
      section.appendChild(el("h2", suite + " \\u2014 " + metric + (m.unit ? " (" + m.unit + ")" : "")));
      var canvas = el("canvas");
      canvas.dataset.suite = suite;
      canvas.dataset.metric = metric;
      var plot = el("div");
      plot.className = "plot";
      plot.appendChild(canvas);
      section.appendChild(plot);
      main.appendChild(section);`;

/** A metric's chart: the series per commit, a tooltip naming the commit, a click opening it. */
const SCRIPT_CHART_CONFIG = `{
        type: "line",
        data: {
          labels: entries.map(function (e) { return String((e.commit && e.commit.id) || "").slice(0, 7); }),
          datasets: m.order.map(function (name) {
            var color = colorOf(name);
            var marked = m.series[name].map(function (_, i) { return markAt(marks, name, i); });
            return { label: name, data: m.series[name], borderColor: color, backgroundColor: color,
                     spanGaps: true, tension: 0,
                     pointRadius: marked.map(function (k) { return k ? 7 : 3; }),
                     pointStyle: marked.map(function (k) { return k ? (k.change.regression ? "triangle" : "rectRot") : "circle"; }) };
          })
        },
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          interaction: { mode: "nearest", intersect: false },
          scales: { y: { title: { display: !!m.unit, text: String(m.unit || "") } } },
          plugins: {
            legend: { display: true },
            tooltip: {
              callbacks: {
                title: function (items) {
                  var e = entries[items[0].dataIndex];
                  if (!e || !e.commit) return "";
                  var msg = String(e.commit.message || "").split("\\n")[0];
                  return String(e.commit.id || "").slice(0, 7) + " " + msg;
                },
                footer: function (items) {
                  var e = entries[items[0].dataIndex];
                  var lines = [e && typeof e.date === "number" ? new Date(e.date).toISOString() : ""];
                  items.forEach(function (item) {
                    var k = markAt(marks, item.dataset.label, item.dataIndex);
                    if (k) lines.push("change point: " + k.series + " " + describeChange(k.change));
                  });
                  return lines;
                }
              }
            }
          },
          onClick: function (_event, elements) {
            if (!elements.length) return;
            var hit = elements[0];
            var k = markAt(marks, this.data.datasets[hit.datasetIndex].label, hit.index);
            var e = entries[hit.index];
            var url = (k && compareLink(k.change)) || (e && e.commit && safeUrl(e.commit.url));
            if (url) window.open(url, "_blank", "noopener");
          }
        },
        plugins: [changeLines(marks)]
      }`;

/** A section per suite and metric, each a line chart of the metric's series over the commits. */
const SCRIPT_CHARTS = `  Object.keys(data.entries).forEach(function (suite) {
${SCRIPT_SERIES_BY_METRIC}
    metrics.forEach(function (metric) {
${SCRIPT_CHART_SECTION}
      var marks = marksFor(suite, metric, entries).filter(function (k) { return m.order.indexOf(k.series) >= 0; });
      var chart = new window.Chart(canvas, ${SCRIPT_CHART_CONFIG});
      charts.push(chart);
${SCRIPT_CHANGE_LIST}
    });
  });`;

/** A checkbox per series that shows or hides it in every chart. */
const SCRIPT_FILTER = `  var filter = document.getElementById("filter");
  seriesNames.slice().sort().forEach(function (name) {
    var label = el("label");
    var box = el("input");
    box.type = "checkbox";
    box.checked = true;
    box.value = name;
    box.addEventListener("change", function () {
      charts.forEach(function (chart) {
        chart.data.datasets.forEach(function (ds, i) {
          if (ds.label === name) chart.setDatasetVisibility(i, box.checked);
        });
        chart.update();
      });
    });
    label.appendChild(box);
    label.appendChild(document.createTextNode(" " + name));
    filter.appendChild(label);
  });`;
