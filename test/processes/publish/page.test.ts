import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publish } from "../../../src/publish/publish.js";
import { launchBrowser } from "../../support/browser.js";
import { bareRepo, checkout, resultsFor } from "../../support/publish/git-support.js";
import { readFileSync, writeFileSync } from "node:fs";

const EVIL_PROXY = '<img src=x onerror="window.pwned=1">';
const EVIL_SCENARIO = "echo<svg onload=window.pwned=2>";
const EVIL_MESSAGE = "</script><script>window.pwned=3</script>";

/** The fixture results with crafted names that must stay text on the page. */
async function craftedResults(sha: string, scale: number): Promise<string> {
  const dir = await resultsFor(sha, EVIL_MESSAGE);
  const file = path.join(dir, "results.json");
  const data = JSON.parse(readFileSync(file, "utf8")) as {
    cells: { proxy: string; scenario: string; repetitions: { rps: number }[] }[];
  };
  for (const cell of data.cells) {
    if (cell.proxy === "nginx") cell.proxy = EVIL_PROXY;
    if (cell.scenario === "echo-1k") cell.scenario = EVIL_SCENARIO;
    for (const r of cell.repetitions) r.rps *= scale;
  }
  writeFileSync(file, JSON.stringify(data));
  return dir;
}

type OpenBrowser = Awaited<ReturnType<typeof launchBrowser>>;
let browser: OpenBrowser;

let pageDir: string;

beforeAll(async () => {
  const bare = await bareRepo();
  for (const [i, scale] of [1, 1.1, 0.95].entries()) {
    await publish({
      resultsDir: await craftedResults(`${i + 1}`.repeat(40), scale),
      remote: bare,
      branch: "gh-pages",
      dir: "dev/bench",
      retries: 0,
      context: { repoUrl: "https://github.com/o/r" },
    });
  }
  pageDir = path.join(await checkout(bare, "gh-pages"), "dev/bench");
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("history page in headless Chromium", () => {
  it("draws one chart per scenario and metric, filters proxies, and keeps names as text", async () => {
    const context = await browser.browser.newContext({ viewport: { width: 1100, height: 900 } });
    // Offline: only the checked-out files may load.
    await context.route("**/*", (route) =>
      route.request().url().startsWith("file:") ? route.continue() : route.abort(),
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(pathToFileURL(path.join(pageDir, "index.html")).href);
    await page.waitForFunction(() =>
      Array.isArray((window as { proxybenchCharts?: unknown[] }).proxybenchCharts),
    );

    const canvases = await page.$$eval("canvas", (list: HTMLCanvasElement[]) =>
      list.map((c) => `${c.dataset.suite} | ${c.dataset.metric}`),
    );
    expect(canvases.sort()).toEqual(
      [
        "small-json throughput | req/s",
        "small-json latency | p50",
        "small-json latency | p99",
        "small-json latency | mean",
        `${EVIL_SCENARIO} (100vus) throughput | req/s`,
        `${EVIL_SCENARIO} (100vus) latency | p50`,
        `${EVIL_SCENARIO} (100vus) latency | p99`,
        `${EVIL_SCENARIO} (100vus) latency | mean`,
      ].sort(),
    );

    const inked = () =>
      page.$$eval("canvas", (list: HTMLCanvasElement[]) =>
        list.map((c) => {
          const pixels = c.getContext("2d")?.getImageData(0, 0, c.width, c.height).data ?? [];
          let n = 0;
          for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) n++;
          return n;
        }),
      );
    for (const n of await inked()) expect(n).toBeGreaterThan(1000);

    // The colour of the crafted proxy's line, counted on the small-json throughput chart.
    const colourPixels = () =>
      page.evaluate((name) => {
        interface PageChart {
          data: { datasets: { label: string; borderColor: string }[] };
          isDatasetVisible(index: number): boolean;
        }
        const chartOf = (
          window as unknown as { Chart: { getChart(this: void, c: HTMLCanvasElement): PageChart } }
        ).Chart.getChart;
        const canvas = Array.from(document.querySelectorAll("canvas")).find(
          (c) => c.dataset.suite === "small-json throughput",
        );
        if (!canvas) throw new Error("no small-json throughput chart");
        const chart = chartOf(canvas);
        const index = chart.data.datasets.findIndex((d) => d.label === name);
        const hex = String(chart.data.datasets[index]?.borderColor);
        const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
        const pixels = canvas.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
        let n = 0;
        for (let i = 0; i < pixels.length; i += 4) {
          if (pixels[i] === rgb[0] && pixels[i + 1] === rgb[1] && pixels[i + 2] === rgb[2]) n++;
        }
        return { n, visible: chart.isDatasetVisible(index) };
      }, EVIL_PROXY);
    const before = await colourPixels();
    expect(before.visible).toBe(true);

    const labels = await page.$$eval("#filter label", (list) => list.map((l) => l.textContent?.trim()));
    expect(labels).toEqual(["direct", "haproxy", EVIL_PROXY].sort());
    await page
      .locator("#filter input")
      .filter({ has: page.locator(`xpath=self::*`) })
      .nth(labels.indexOf(EVIL_PROXY))
      .uncheck();
    const after = await colourPixels();
    expect(after.visible).toBe(false);
    expect(after.n).toBeLessThan(before.n / 2);

    // Crafted names stayed text: nothing ran, no element came from them.
    expect(await page.evaluate(() => (window as { pwned?: unknown }).pwned)).toBeUndefined();
    expect(await page.$$("img, svg")).toHaveLength(0);
    expect(await page.locator("h2", { hasText: EVIL_SCENARIO }).count()).toBe(4);
    expect(errors).toEqual([]);

    await mkdir("test-output", { recursive: true });
    await page.screenshot({ path: "test-output/publish-history-page.png", fullPage: true });
    expect((await readFile("test-output/publish-history-page.png")).length).toBeGreaterThan(10_000);
    await context.close();
  }, 120_000);
});
