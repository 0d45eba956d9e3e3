import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  icicleData,
  icicleLayout,
  renderCountedComparisonHtml,
} from "../../../../src/measures/counted/compare-html.js";
import type { CountedComparison } from "../../../../src/measures/counted/compare.js";
import type { FunctionChange } from "../../../../src/measures/counted/where.js";
import { launchBrowser } from "../../../support/browser.js";

const OUTPUT = path.resolve("test-output/instructions");
const EVIL = "<img src=x onerror=alert(1)>";
const NGINX = "/usr/sbin/nginx";
const LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6";

function change(name: string, object: string | undefined, base: number, head: number): FunctionChange {
  return { name, ...(object === undefined ? {} : { object }), base, head, delta: head - base };
}

/** 40 changed functions in two objects (one crafted name, one without an object), a cell without changes. */
function sample(): CountedComparison {
  const self = [
    change("ngx_http_script_copy_code", NGINX, 100, 1900),
    change("memcpy", LIBC, 500, 900),
    change(EVIL, NGINX, 300, 100),
    change("anonymous", undefined, 10, 15),
    ...Array.from({ length: 36 }, (_, i) => change(`ngx_small_${i}`, NGINX, 50, 50 + (i % 2 ? 3 : -2))),
  ];
  const metric = {
    label: "Instructions/request",
    baseN: 3,
    headN: 3,
    baseMedian: 27_849.7,
    headMedian: 35_168.7,
    changePct: 26.3,
    spreadPct: 0.02,
    verdict: "more-work" as const,
  };
  return {
    floorPct: 0.5,
    spreadFactor: 3,
    variants: { base: "base", head: `head ${EVIL}` },
    cells: [
      { id: "passthrough/nginx", metrics: [metric], where: { self, inclusive: self.slice(0, 3) } },
      {
        id: "passthrough/haproxy",
        metrics: [{ ...metric, verdict: "unchanged" }],
        where: { self: [], inclusive: [] },
      },
    ],
    notCompared: [{ id: `x/${EVIL}`, why: "only in head" }],
  };
}

describe("counted comparison as HTML (pure)", () => {
  it("lays every changed function out under its object, widths by the size of the change", () => {
    const self = sample().cells[0]?.where?.self ?? [];
    const nodes = icicleLayout(self);
    const functions = nodes.filter((n) => n.depth === 2);
    expect(functions).toHaveLength(self.length);
    expect(nodes.filter((n) => n.depth === 1).map((n) => n.name)).toEqual([NGINX, LIBC, "(unknown object)"]);
    const size = self.reduce((s, c) => s + Math.abs(c.delta), 0);
    const copy = functions.find((n) => n.name === "ngx_http_script_copy_code");
    expect((copy?.x1 ?? 0) - (copy?.x0 ?? 0)).toBeCloseTo(1800 / size, 12);
    // Siblings tile their parent with no gap and no overlap; the last object ends at the right edge.
    const libc = functions.filter((n) => n.object === LIBC);
    const libcNode = nodes.find((n) => n.name === LIBC);
    expect(libc[0]?.x0).toBeCloseTo(libcNode?.x0 ?? -1, 12);
    expect(nodes.filter((n) => n.depth === 1).at(-1)?.x1).toBeCloseTo(1, 12);
    expect(nodes[0]).toMatchObject({ depth: 0, x0: 0, x1: 1, delta: 1800 + 400 - 200 + 5 + 18 * 3 - 18 * 2 });
    expect(icicleLayout([])).toEqual([]);
  });

  it("is self-contained and escapes every name, in the page and in the chart's data", () => {
    const html = renderCountedComparisonHtml(sample());
    expect(html).toContain("Content-Security-Policy");
    expect(html.match(/<script[^>]+src=|<link |https?:\/\//gi)).toBeNull();
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("40 functions");
    expect(icicleData(sample()).charts.map((c) => c.id)).toEqual(["icicle-0"]);
  });
});

describe("counted comparison HTML in headless Chromium", () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    browser = await launchBrowser();
    await mkdir(OUTPUT, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("opens offline and draws the icicle: red where more work, blue where less, names on hover", async () => {
    const file = path.join(OUTPUT, "compare.html");
    await writeFile(file, renderCountedComparisonHtml(sample()));
    const context = await browser.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const requests: string[] = [];
    await context.route("**/*", async (route) => {
      const url = route.request().url();
      if (url.startsWith("file:")) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-charts]", { timeout: 20_000 });
    expect(errors).toEqual([]);
    expect(await page.getAttribute("body", "data-charts")).toBe("1");
    expect(await page.locator("canvas").count()).toBe(1);
    const ink = await page.$eval("#icicle-0", (c: HTMLCanvasElement) => {
      const px = c.getContext("2d")?.getImageData(0, 0, c.width, c.height).data ?? [];
      let red = 0;
      let blue = 0;
      for (let i = 0; i < px.length; i += 4) {
        const [r, g, b] = [px[i] ?? 0, px[i + 1] ?? 0, px[i + 2] ?? 0];
        if (r > b + 60 && r > g + 30) red++;
        if (b > r + 60) blue++;
      }
      return { red, blue };
    });
    expect(ink.red).toBeGreaterThan(5000);
    expect(ink.blue).toBeGreaterThan(300);
    // Hovering the left of the function row names the largest change.
    const box = await page.locator("#icicle-0").boundingBox();
    if (!box) throw new Error("no canvas box");
    await page.mouse.move(box.x + 10, box.y + (box.height * 70) / 90);
    expect(await page.textContent("#icicle-0-tip")).toMatch(
      /^ngx_http_script_copy_code \(\/usr\/sbin\/nginx\): 100\.0 -> 1,900\.0/,
    );
    expect(dialogs).toEqual([]);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.textContent("body")).toContain(EVIL);
    expect(requests).toEqual([]);
    await page.screenshot({ path: path.join(OUTPUT, "compare.png"), fullPage: true });
    await context.close();
  });
});
