import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_P, DEFAULT_MIN_CHANGE_PCT } from "../../../src/changes/find.js";
import { changeCounts, renderChangesMarkdown } from "../../../src/report/change-points-markdown.js";
import type { ChangePoint, SeriesChanges } from "../../../src/publish/change-points.js";
import { liveMarkup, visibleText } from "../../support/actions/gfm.js";
import { tableAfter } from "../../support/report/markdown.js";

const settings = { maxPValue: DEFAULT_MAX_P, minChangePct: DEFAULT_MIN_CHANGE_PCT };
const URL_BEFORE = "https://github.com/o/r/commit/aaaaaaaaaaaaaaaa";
const URL_AFTER = "https://github.com/o/r/commit/bbbbbbbbbbbbbbbb";

function change(over: Partial<ChangePoint> = {}): ChangePoint {
  return {
    index: 20,
    before: { id: "aaaaaaaaaaaaaaaa", url: URL_BEFORE, date: 1 },
    after: { id: "bbbbbbbbbbbbbbbb", url: URL_AFTER, date: 2 },
    meanBefore: 1.5,
    meanAfter: 1.8,
    changePct: 20,
    pValue: 2.5e-7,
    regression: true,
    ...over,
  };
}

function series(over: Partial<SeriesChanges> = {}): SeriesChanges {
  return {
    suite: "passthrough latency",
    bench: "nginx p99",
    unit: "ms",
    biggerIsBetter: false,
    points: 40,
    changes: [change()],
    ...over,
  };
}

describe("renderChangesMarkdown", () => {
  it("a row per change point: series, commit range linked, point, means, change, p-value, verdict", () => {
    const improvement = change({
      meanBefore: 9000,
      meanAfter: 9900,
      changePct: 10,
      pValue: 0.0004,
      regression: false,
    });
    const md = renderChangesMarkdown({
      source: "gh-pages/dev/bench/data.js",
      settings,
      series: [
        series(),
        series({
          suite: "passthrough throughput",
          bench: "nginx req/s",
          unit: "req/s",
          biggerIsBetter: true,
          changes: [improvement],
        }),
        series({ bench: "haproxy p99", changes: [] }),
      ],
    });
    expect(md).toMatch(/^## proxybench changes: 1 regression, 1 improvement in 3 series\n/);
    expect(md).toContain("p-value at most 0.001, change at least 3%");
    const rows = tableAfter(md, "| suite");
    expect(rows[2]).toEqual([
      "passthrough latency",
      "nginx p99",
      `[aaaaaaaaaaaa](${URL_BEFORE}) .. [bbbbbbbbbbbb](${URL_AFTER})`,
      "20 of 40",
      "1.5 ms",
      "1.8 ms",
      "+20.00%",
      "2.5e-7",
      "**regression**",
    ]);
    expect(rows[3]?.slice(4)).toEqual(["9000 req/s", "9900 req/s", "+10.00%", "4.0e-4", "improvement"]);
    expect(rows).toHaveLength(4);
    expect(liveMarkup(md, [URL_BEFORE, URL_AFTER])).toEqual([]);
  });

  it("says when there is nothing to show, and names the series too short to tell", () => {
    const none = renderChangesMarkdown({
      source: "data.js",
      settings,
      series: [series({ changes: [] }), series({ bench: "new p50", points: 3, changes: [] })],
    });
    expect(none).toContain("No change points.");
    expect(none).not.toContain("| suite");
    expect(visibleText(none)).toContain(
      "1 series too short to tell a change from noise (fewer than 6 points, not analysed): passthrough latency: new p50 (3).",
    );
    expect(none).toContain("1 series analysed");
    const empty = renderChangesMarkdown({ source: "data.js", settings, series: [] });
    expect(empty).toContain("The history holds no series.");
  });

  it("shows hostile names from data.js as written, with nothing live and no row broken", () => {
    const hostile = "a|b `code` <script>alert(1)</script> [x](javascript:alert(1)) @team #12\nnew line";
    const md = renderChangesMarkdown({
      source: "data.js",
      settings,
      series: [
        series({
          suite: hostile,
          bench: `${hostile} p99`,
          unit: "<b>ms</b>|",
          changes: [
            change({
              before: { id: "](javascript:alert(1))", url: "javascript:alert(1)", date: 1 },
              after: { id: "<img src=x>", url: "https://x.y/a)(javascript:alert(1)", date: 2 },
            }),
          ],
        }),
      ],
    });
    expect(liveMarkup(md)).toEqual([]);
    const rows = tableAfter(md, "| suite");
    expect(rows[2]).toHaveLength(9);
    const text = visibleText(md);
    expect(text).toContain(
      "a|b `code` <script>alert(1)</script> [x](javascript:alert(1)) @team #12 new line p99",
    );
    expect(text).toContain("](javascript .. <img src=x>");
    expect(text).toContain("<b>ms</b>|");
  });

  it("changeCounts: regressions and improvements over every series", () => {
    const s = [series({ changes: [change(), change({ regression: false })] }), series()];
    expect(changeCounts(s)).toEqual({ regressions: 2, improvements: 1 });
  });
});
