import { mkdir, readFile, rm } from "node:fs/promises";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseChanges } from "../../../src/publish/changesjs.js";
import type { ChangePoint, SeriesChanges } from "../../../src/publish/change-points.js";
import { parseDataJs } from "../../../src/publish/datajs.js";
import { publish } from "../../../src/publish/publish.js";
import { launchBrowser } from "../../support/browser.js";
import { bareRepo, checkout, resultsFor } from "../../support/publish/git-support.js";

const EVIL_PROXY = '<img src=x onerror="window.pwned=1">';
const EVIL_SERIES = "</li><script>window.pwned=2</script>";
const sha = (i: number) => `${i}`.repeat(40);

/** The fixture results at commit `i`, nginx renamed, its p99 times `p99Scale`, direct's rate times `rpsScale`. */
async function results(i: number, p99Scale: number, rpsScale: number): Promise<string> {
  const dir = await resultsFor(sha(i), `commit ${i} <b>@someone</b>`);
  const file = path.join(dir, "results.json");
  const data = JSON.parse(readFileSync(file, "utf8")) as {
    cells: { proxy: string; repetitions: { rps: number; latencyMs: { p99: number } }[] }[];
  };
  for (const cell of data.cells) {
    if (cell.proxy === "nginx") cell.proxy = EVIL_PROXY;
    for (const r of cell.repetitions) {
      if (cell.proxy === EVIL_PROXY) r.latencyMs.p99 *= p99Scale;
      if (cell.proxy === "direct") r.rps *= rpsScale;
    }
  }
  writeFileSync(file, JSON.stringify(data));
  return dir;
}

function change(before: string, after: string, index: number, pct: number, p: number, regression: boolean) {
  const point: ChangePoint = {
    index,
    before: { id: before, date: 1 },
    after: { id: after, date: 2 },
    meanBefore: 100,
    meanAfter: 100 * (1 + pct / 100),
    changePct: pct,
    pValue: p,
    regression,
  };
  return point;
}

/** What the finder would say of this history: fixed values, placed on the commits data.js holds. */
async function fixtureFinder(dataJsFile: string): Promise<SeriesChanges[]> {
  const data = parseDataJs(await readFile(dataJsFile, "utf8"), dataJsFile);
  const points = data.entries["small-json latency"]?.length ?? 0;
  const series = (suite: string, bench: string, changes: ChangePoint[]): SeriesChanges => ({
    suite,
    bench,
    unit: "ms",
    biggerIsBetter: suite.endsWith("throughput"),
    points,
    changes,
  });
  return [
    series("small-json latency", `${EVIL_PROXY} p99`, [change(sha(3), sha(4), 3, 6.1, 0.0004, true)]),
    series("small-json throughput", "direct req/s", [change(sha(2), sha(3), 2, 12.3, 0.002, false)]),
    // A before that is no commit sha: the range is shown, never linked.
    series("small-json latency", "direct p99", [change('"><b>x</b>', sha(5), 4, -3.5, 0.01, false)]),
    // A series the chart does not draw, and a commit the history does not hold: not marked.
    series("small-json latency", `${EVIL_SERIES} p99`, [change(sha(1), sha(2), 1, 50, 0.001, true)]),
    series("small-json latency", "direct p50", [change(sha(1), "f".repeat(40), 1, 50, 0.001, true)]),
  ];
}

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let pageDir: string;

beforeAll(async () => {
  const bare = await bareRepo();
  const steps: [number, number][] = [
    [1, 1],
    [1, 1],
    [1, 1.12],
    [1.06, 1.12],
    [1.06, 1.12],
  ];
  for (const [i, [p99, rps]] of steps.entries()) {
    const outcome = await publish({
      resultsDir: await results(i + 1, p99, rps),
      remote: bare,
      branch: "gh-pages",
      dir: "dev/bench",
      retries: 0,
      context: { repoUrl: "https://github.com/o/r" },
      findChanges: fixtureFinder,
    });
    expect(outcome.changes).toHaveLength(5);
  }
  pageDir = path.join(await checkout(bare, "gh-pages"), "dev/bench");
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(pathToFileURL(path.join(pageDir, "index.html")).href);
  await page.waitForFunction(() =>
    Array.isArray((window as { proxybenchCharts?: unknown[] }).proxybenchCharts),
  );
  return { page, errors };
}

/** The point styles of a series on the chart of a suite and metric. */
function pointStyles(page: Page, suite: string, metric: string, series: string) {
  return page.evaluate(
    ([suite, metric, series]) => {
      const canvas = Array.from(document.querySelectorAll("canvas")).find(
        (c) => c.dataset.suite === suite && c.dataset.metric === metric,
      );
      if (!canvas) throw new Error(`no chart ${suite} ${metric}`);
      const chart = (
        window as unknown as {
          Chart: {
            getChart(c: HTMLCanvasElement): { data: { datasets: { label: string; pointStyle: string[] }[] } };
          };
        }
      ).Chart.getChart(canvas);
      return chart.data.datasets.find((d) => d.label === series)?.pointStyle;
    },
    [suite, metric, series],
  );
}

describe("change points on the history page in headless Chromium", () => {
  it("writes changes.js beside data.js, as the finder returned it", async () => {
    const text = await readFile(path.join(pageDir, "changes.js"), "utf8");
    expect(text.startsWith("window.BENCHMARK_CHANGES = ")).toBe(true);
    expect(parseChanges(text, "changes.js")).toEqual(await fixtureFinder(path.join(pageDir, "data.js")));
  });

  it("marks each change point on its series and links its commit range", async () => {
    const context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.route("**/*", (route) =>
      route.request().url().startsWith("file:") ? route.continue() : route.abort(),
    );
    const { page, errors } = await openPage(context);

    const items = await page.$$eval(".changes li", (list) =>
      list.map((li) => ({
        section: li.closest("section")?.querySelector("h2")?.textContent,
        text: li.textContent,
        kind: li.querySelector("span")?.className,
        href: li.querySelector("a")?.getAttribute("href") ?? null,
      })),
    );
    expect(items).toEqual([
      {
        section: "small-json throughput \u2014 req/s (req/s)",
        text: "direct: +12.3% (p 0.002) improvement 2222222...3333333",
        kind: "improvement",
        href: `https://github.com/o/r/compare/${sha(2)}...${sha(3)}`,
      },
      {
        section: "small-json latency \u2014 p99 (ms)",
        text: `${EVIL_PROXY}: +6.1% (p 0.0004) regression 3333333...4444444`,
        kind: "regression",
        href: `https://github.com/o/r/compare/${sha(3)}...${sha(4)}`,
      },
      {
        section: "small-json latency \u2014 p99 (ms)",
        text: 'direct: -3.5% (p 0.01) improvement "><b>x<...5555555',
        kind: "improvement",
        href: null,
      },
    ]);
    expect(await pointStyles(page, "small-json latency", "p99", EVIL_PROXY)).toEqual([
      "circle",
      "circle",
      "circle",
      "triangle",
      "circle",
    ]);
    expect(await pointStyles(page, "small-json throughput", "req/s", "direct")).toEqual([
      "circle",
      "circle",
      "rectRot",
      "circle",
      "circle",
    ]);

    // The tooltip of the marked point names the change.
    const footer = await hoverMark(page, "small-json latency", "p99", EVIL_PROXY, 3);
    expect(footer).toContain(`change point: ${EVIL_PROXY} +6.1% (p 0.0004) regression`);

    expect(await page.evaluate(() => (window as { pwned?: unknown }).pwned)).toBeUndefined();
    expect(await page.$$("img, script:not([src])")).toHaveLength(1); // the page's own script
    expect(errors).toEqual([]);

    await mkdir("test-output", { recursive: true });
    const section = page
      .locator("section", { has: page.locator('canvas[data-suite="small-json latency"][data-metric="p99"]') })
      .first();
    await section.screenshot({ path: "test-output/changes-chart.png" });
    await page.mouse.move(0, 0);
    await section.screenshot({ path: "test-output/changes-chart-still.png" });
    expect((await readFile("test-output/changes-chart.png")).length).toBeGreaterThan(10_000);
    await context.close();
  }, 120_000);

  it("draws no marks, and no error, without changes.js", async () => {
    await rm(path.join(pageDir, "changes.js"));
    const context = await browser.browser.newContext();
    const { page, errors } = await openPage(context);
    expect(await page.$$("canvas")).toHaveLength(8);
    expect(await page.$$(".changes")).toHaveLength(0);
    expect(await pointStyles(page, "small-json latency", "p99", EVIL_PROXY)).toEqual(Array(5).fill("circle"));
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

/** Moves the mouse onto a point of a chart; the tooltip's footer lines. */
async function hoverMark(page: Page, suite: string, metric: string, series: string, index: number) {
  const where = await page.evaluate(
    ([suite, metric, series, index]) => {
      const canvas = Array.from(document.querySelectorAll("canvas")).find(
        (c) => c.dataset.suite === suite && c.dataset.metric === metric,
      )!;
      canvas.scrollIntoView();
      interface Meta {
        data: { x: number; y: number }[];
      }
      const chart = (
        window as unknown as {
          Chart: {
            getChart(c: HTMLCanvasElement): {
              data: { datasets: { label: string }[] };
              getDatasetMeta(i: number): Meta;
            };
          };
        }
      ).Chart.getChart(canvas);
      const i = chart.data.datasets.findIndex((d) => d.label === series);
      const point = chart.getDatasetMeta(i).data[Number(index)]!;
      const box = canvas.getBoundingClientRect();
      return { x: box.left + point.x, y: box.top + point.y };
    },
    [suite, metric, series, String(index)],
  );
  await page.mouse.move(where.x, where.y);
  return page.evaluate(
    ([suite, metric]) => {
      const canvas = Array.from(document.querySelectorAll("canvas")).find(
        (c) => c.dataset.suite === suite && c.dataset.metric === metric,
      )!;
      const chart = (
        window as unknown as { Chart: { getChart(c: HTMLCanvasElement): { tooltip: { footer: string[] } } } }
      ).Chart.getChart(canvas);
      return chart.tooltip.footer.join("\n");
    },
    [suite, metric],
  );
}
