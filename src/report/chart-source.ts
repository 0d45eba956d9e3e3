import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * The source of Chart.js's UMD bundle, read from the installed package at run time so the HTML
 * report can inline it (no CDN: the report opens offline).
 */
export function loadChartJsSource(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve("chart.js");
  return readFileSync(path.join(path.dirname(main), "chart.umd.min.js"), "utf8");
}

/** A script body that cannot end its `<script>` element early. */
export function inlineScript(source: string): string {
  return source.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}
