/**
 * The history page written next to data.js on gh-pages. It is static: every name (suite, proxy,
 * commit message, repository) comes from data.js at run time and reaches the page through
 * `textContent` and chart labels only, never as markup, so a crafted name cannot inject HTML.
 * Chart.js is loaded from a copy written next to it, so the page also works offline.
 */

/** Present in every page we write; a page without it is someone else's and is left alone. */
const PAGE_MARKER = '<meta name="generator" content="proxybench history page">';

export const CHART_JS_FILE = "chart.umd.min.js";

export function isOurPage(html: string): boolean {
  return html.includes(PAGE_MARKER);
}

export function renderIndexHtml(): string {
  return `<!doctype html>
<html lang="en">
${pageHead()}
<body>
${pageMarkup()}
<script>
(function () {
  "use strict";
${scriptData()}
${scriptSeries()}
${scriptCharts()}
${scriptFilter()}
  window.proxybenchCharts = charts;
})();
</script>
</body>
</html>
`;
}

/** The page's head: its marker, title and styles. */
function pageHead(): string {
  return `<head>
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
</style>
</head>`;
}

/** The page's markup: the header the script fills in, where the charts go, the scripts it loads. */
function pageMarkup(): string {
  return `<header>
  <h1>Benchmark history</h1>
  <p class="muted"><a id="repo" rel="noopener"></a> <span id="updated"></span></p>
  <div id="filter" aria-label="Proxies shown"></div>
</header>
<main id="charts"></main>
<noscript>This page needs JavaScript to draw its charts; the data is in data.js.</noscript>
<script src="${CHART_JS_FILE}"></script>
<script src="data.js"></script>`;
}

/**
 * The script's start: the data from data.js (or a message when there is none), the repository
 * and the date of the last update.
 */
function scriptData(): string {
  return `  var data = window.BENCHMARK_DATA;
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
}

/** The charts drawn, one color per series (proxy) in all of them, a bench name as series and metric. */
function scriptSeries(): string {
  return `  var palette = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#e16f24", "#6e7781",
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
}

/** A section per suite and metric, each a line chart of the metric's series over the commits. */
function scriptCharts(): string {
  return `  Object.keys(data.entries).forEach(function (suite) {
${scriptSeriesByMetric()}
    metrics.forEach(function (metric) {
${scriptChartSection()}
      var chart = new window.Chart(canvas, ${scriptChartConfig()});
      charts.push(chart);
    });
  });`;
}

/**
 * A suite's entries as series per metric: each metric's unit and each series' value per entry
 * (null where the entry has none).
 */
function scriptSeriesByMetric(): string {
  return `    var entries = Array.isArray(data.entries[suite]) ? data.entries[suite] : [];
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
}

/** A metric's section: its heading and the canvas its chart draws on. */
function scriptChartSection(): string {
  return `      var m = byMetric[metric];
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
}

/** A metric's chart: the series per commit, a tooltip naming the commit, a click opening it. */
function scriptChartConfig(): string {
  return `{
        type: "line",
        data: {
          labels: entries.map(function (e) { return String((e.commit && e.commit.id) || "").slice(0, 7); }),
          datasets: m.order.map(function (name) {
            var color = colorOf(name);
            return { label: name, data: m.series[name], borderColor: color, backgroundColor: color,
                     spanGaps: true, tension: 0, pointRadius: 3 };
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
                  return e && typeof e.date === "number" ? new Date(e.date).toISOString() : "";
                }
              }
            }
          },
          onClick: function (_event, elements) {
            if (!elements.length) return;
            var e = entries[elements[0].index];
            var url = e && e.commit && safeUrl(e.commit.url);
            if (url) window.open(url, "_blank", "noopener");
          }
        }
      }`;
}

/** A checkbox per series that shows or hides it in every chart. */
function scriptFilter(): string {
  return `  var filter = document.getElementById("filter");
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
}
