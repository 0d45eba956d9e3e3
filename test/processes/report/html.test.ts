import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderHtmlReport, renderHtmlReportModel, chartData } from "../../../src/report/html.js";
import { k6Report } from "../../../src/report/k6-summary.js";
import { buildReport } from "../../../src/report/model.js";
import { readResults } from "../../../src/results/io.js";
import type { Results } from "../../../src/results/schema.js";
import { launchBrowser } from "../../support/browser.js";
import { cell, results } from "../../support/report/build.js";

const OUTPUT = path.resolve("test-output/report");
const EVIL = "<img src=x onerror=alert(1)>";

/** Three proxies (one crafted name), five repetitions each, one invalid proxy, two scenarios. */
function sample(): Results {
  const spread = (rps: number, p50: number) =>
    [0.97, 1.0, 1.02, 0.99, 1.01].map((f) => ({ rps: rps * f, p50: p50 / f }));
  return results([
    cell("direct", spread(20000, 1.2)),
    cell("nginx", spread(15000, 1.6)),
    cell(EVIL, spread(9000, 2.4)),
    cell("haproxy", [{ rps: 31337, p50: 0.777, non2xx: 100 }], {
      status: "invalid",
      reasons: ["non-2xx: 100"],
    }),
    cell("direct", spread(12000, 2), { scenario: "json </script><script>alert(2)</script>" }),
    cell("nginx", spread(10000, 2.5), { scenario: "json </script><script>alert(2)</script>" }),
  ]);
}

describe("renderHtmlReport (pure)", () => {
  it("is self-contained: Chart.js inlined, no external script, style or image", () => {
    const html = renderHtmlReport(sample(), { chartJs: "/* Chart.js stand-in */" });
    expect(html).toContain("<script>/* Chart.js stand-in */</script>");
    // outside the inlined library: no URL at all, so nothing can be fetched
    expect(html.match(/<script[^>]+src=|<link |https?:\/\//gi)).toBeNull();
    expect(renderHtmlReport(sample())).toContain("Chart.js v4");
  });

  it("escapes names in the page and in the embedded data", () => {
    const html = renderHtmlReport(sample());
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("</script><script>alert(2)");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("draws only ok proxies, with min-max whiskers across repetitions", () => {
    const data = chartData(buildReport(sample()));
    expect(data.groups[0]?.proxies).toEqual(["direct", "nginx", EVIL]);
    expect(data.groups[0]?.rpsRange[0]).toEqual([20000 * 0.97, 20000 * 1.02]);
    expect(data.groups[0]?.rps[0]).toBe(20000);
    expect(JSON.stringify(data)).not.toContain("31337");
  });
});

type OpenBrowser = Awaited<ReturnType<typeof launchBrowser>>;

describe("HTML report in headless Chromium", () => {
  let browser: OpenBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
    await mkdir(OUTPUT, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(html: string, name: string) {
    const file = path.join(OUTPUT, name);
    await writeFile(file, html);
    const context = await browser.browser.newContext({ viewport: { width: 1800, height: 1200 } });
    const requests: string[] = [];
    const dialogs: string[] = [];
    await context.route("**/*", async (route) => {
      const url = route.request().url();
      if (url.startsWith("file:")) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-charts]", { timeout: 20_000 });
    return { page, context, requests, dialogs, errors };
  }

  it("opens offline from a file:// URL and draws every chart", async () => {
    const { page, context, requests, dialogs, errors } = await open(
      renderHtmlReport(sample()),
      "report.html",
    );
    expect(errors).toEqual([]);
    expect(await page.getAttribute("body", "data-charts")).toBe("6");
    // every canvas has ink of more than one colour: bars, whiskers, axes and labels
    const inks = await page.$$eval("canvas", (list: HTMLCanvasElement[]) =>
      list.map((c) => {
        const pixels = c.getContext("2d")?.getImageData(0, 0, c.width, c.height).data ?? [];
        const colours = new Set<string>();
        let inked = 0;
        for (let i = 0; i < pixels.length; i += 4) {
          if ((pixels[i + 3] ?? 0) === 0) continue;
          inked += 1;
          colours.add(`${pixels[i]},${pixels[i + 1]},${pixels[i + 2]}`);
        }
        return { id: c.id, inked, colours: colours.size };
      }),
    );
    expect(inks).toHaveLength(6);
    for (const ink of inks) {
      expect(ink.inked, ink.id).toBeGreaterThan(1000);
      expect(ink.colours, ink.id).toBeGreaterThan(3);
    }
    // crafted names are text, and nothing ran
    expect(dialogs).toEqual([]);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.textContent("body")).toContain(EVIL);
    expect(requests).toEqual([]);
    await page.screenshot({ path: path.join(OUTPUT, "report.png"), fullPage: true });
    await context.close();
  });

  it("draws the report of a real run (sample fixture) too", async () => {
    const real = await readResults("test/fixtures/report/sample");
    const { page, context, dialogs, errors } = await open(renderHtmlReport(real), "sample.html");
    expect(errors).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(Number(await page.getAttribute("body", "data-charts"))).toBe(3);
    await context.close();
  });

  it("draws k6 summaries without p99 and leaves out a group with nothing valid", async () => {
    const k6 = "test/fixtures/report/k6";
    const model = await k6Report([
      `a=${k6}/ok-handle-summary.json`,
      `b=${k6}/default-stats-summary-export.json`,
      `c=${k6}/refused-summary-export.json`,
    ]);
    const { page, context, errors } = await open(renderHtmlReportModel(model), "k6.html");
    expect(errors).toEqual([]);
    expect(await page.getAttribute("body", "data-charts")).toBe("3");
    await context.close();

    const allBad = results([cell("x", [{ rps: 1, p50: 1 }], { status: "failed", reasons: ["exit 1"] })]);
    const bad = await open(renderHtmlReport(allBad), "failed.html");
    expect(bad.errors).toEqual([]);
    expect(await bad.page.getAttribute("body", "data-charts")).toBe("0");
    expect(await bad.page.locator("canvas").count()).toBe(0);
    expect(await bad.page.textContent("body")).toContain("Nothing to draw");
    await bad.context.close();
  });
});
