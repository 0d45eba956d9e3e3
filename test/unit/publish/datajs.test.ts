import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appendEntries, parseDataJs, serializeDataJs, type BenchEntry } from "../../../src/publish/datajs.js";
import {
  buildSuites,
  commitInfo,
  suiteName,
  TOOL_BIGGER,
  TOOL_SMALLER,
} from "../../../src/publish/entries.js";
import { isOurPage, renderIndexHtml } from "../../../src/publish/page.js";
import { normaliseDir } from "../../../src/publish/publish.js";
import { Results } from "../../../src/results/schema.js";
import { UserError } from "../../../src/util/errors.js";
import { FIXTURES, fixtureResults } from "../../support/publish/fixtures.js";

const realDataJs = readFileSync(path.join(FIXTURES, "github-action-benchmark-data.js.txt"), "utf8");

function entry(id: string, date: number): BenchEntry {
  return {
    commit: { author: {}, committer: {}, id, message: id },
    date,
    tool: TOOL_BIGGER,
    benches: [{ name: "nginx req/s", value: date, unit: "req/s" }],
  };
}

describe("data.js", () => {
  it("round-trips github-action-benchmark's file byte for byte, unknown fields included", () => {
    const data = parseDataJs(realDataJs, "data.js");
    expect(Object.keys(data.entries)).toEqual(["Benchmark", "Python Benchmark"]);
    expect(serializeDataJs(data)).toBe(realDataJs);
  });

  it("appends after the existing entries and keeps other suites untouched", () => {
    const data = parseDataJs(realDataJs, "data.js");
    const updated = appendEntries(data, new Map([["Benchmark", entry("c1", 5)]]), { now: 99 });
    expect(updated.lastUpdate).toBe(99);
    expect(updated.entries.Benchmark?.map((e) => e.commit.id)).toEqual([
      "13f5d5708aa4baefe68655e94d167b4efc46662f",
      "c1",
    ]);
    expect(updated.entries["Python Benchmark"]).toEqual(data.entries["Python Benchmark"]);
    // The input is not changed.
    expect(data.entries.Benchmark).toHaveLength(1);
    const reparsed = parseDataJs(serializeDataJs(updated), "data.js");
    expect(reparsed).toEqual(updated);
  });

  it.each([
    [1, ["c3"]],
    [2, ["c2", "c3"]],
    [5, ["c0", "c1", "c2", "c3"]],
  ])("--max-items %i keeps the newest entries of each suite", (maxItems, kept) => {
    let data = parseDataJs(
      "window.BENCHMARK_DATA = {}".replace("{}", '{"lastUpdate":0,"repoUrl":"","entries":{}}'),
      "d",
    );
    for (let i = 0; i < 4; i++) {
      data = appendEntries(data, new Map([["s", entry(`c${i}`, i)]]), { now: i, maxItems });
    }
    expect(data.entries.s?.map((e) => e.commit.id)).toEqual(kept);
  });

  it.each([
    ["", /does not start with 'window.BENCHMARK_DATA ='/],
    ["var x = 1", /does not start with/],
    ["window.BENCHMARK_DATA = {", /does not parse/],
    ['window.BENCHMARK_DATA = {"lastUpdate": 1, "repoUrl": ""}', /entries/],
    [
      'window.BENCHMARK_DATA = {"lastUpdate":1,"repoUrl":"","entries":{"s":[{"commit":{"author":{},"committer":{},"id":"a","message":"m"},"date":1,"tool":"x","benches":[{"name":"n","value":"fast","unit":"u"}]}]}}',
      /entries\.s\[0\]\.benches\[0\]\.value/,
    ],
  ])("refuses a corrupt data.js, naming the file and field: %j", (text, pattern) => {
    let caught: unknown;
    try {
      parseDataJs(text, "gh-pages:dev/bench/data.js");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UserError);
    expect((caught as Error).message).toContain("gh-pages:dev/bench/data.js");
    expect((caught as Error).message).toMatch(pattern);
  });
});

describe("suites from results", () => {
  const results = fixtureResults();
  const commit = commitInfo(results, { repoUrl: "https://github.com/o/r/" });
  const suites = buildSuites(results, { commit, date: 1234 });

  it("splits each scenario and load into a throughput and a latency suite", () => {
    expect([...suites.keys()]).toEqual([
      "small-json throughput",
      "small-json latency",
      "echo-1k (100vus) throughput",
      "echo-1k (100vus) latency",
    ]);
    expect(suites.get("small-json throughput")?.tool).toBe(TOOL_BIGGER);
    expect(suites.get("small-json latency")?.tool).toBe(TOOL_SMALLER);
  });

  it("makes benches of ok cells only", () => {
    const names = (s: string) => suites.get(s)?.benches.map((b) => b.name);
    expect(names("small-json throughput")).toEqual(["direct req/s", "nginx req/s"]);
    expect(names("small-json latency")).toEqual([
      "direct p50",
      "direct p99",
      "direct mean",
      "nginx p50",
      "nginx p99",
      "nginx mean",
    ]);
    expect(names("echo-1k (100vus) throughput")).toEqual(["direct req/s", "haproxy req/s"]);
  });

  it("uses the median of the repetitions, their spread, and says how it was measured", () => {
    const nginx = suites.get("small-json throughput")?.benches[1];
    expect(nginx).toMatchObject({ name: "nginx req/s", value: 15000, unit: "req/s", range: "± 200" });
    expect(nginx?.extra).toContain("repetitions: 3");
    expect(nginx?.extra).toContain("engine: k6");
    const p99 = suites.get("small-json latency")?.benches.find((b) => b.name === "nginx p99");
    expect(p99).toMatchObject({ value: 9.5, unit: "ms", range: "± 0.4" });
  });

  it("takes the commit from results.json and the URL from the context", () => {
    expect(commit).toMatchObject({
      id: "3f2c9a1b7d4e5f60718293a4b5c6d7e8f9012345",
      message: "Tune upstream keep-alive\n\nLonger body line.",
      timestamp: "2026-11-20T09:55:00+00:00",
      author: { name: "Ada Lovelace", email: "ada@example.org" },
      url: "https://github.com/o/r/commit/3f2c9a1b7d4e5f60718293a4b5c6d7e8f9012345",
    });
    const bare = fixtureResults();
    bare.environment.git = {};
    expect(commitInfo(bare, { sha: "abc" })).toMatchObject({
      id: "abc",
      message: "",
      timestamp: bare.startedAt,
    });
    expect(commitInfo(bare).url).toBeUndefined();
  });

  it("names the engine when one proxy ran a scenario with several", () => {
    const r = fixtureResults();
    const copy = structuredClone(r.cells[0]!);
    copy.engine = "wrk";
    copy.id = "small-json/default/direct/wrk";
    r.cells.push(copy);
    const names = buildSuites(r, { commit, date: 1 })
      .get("small-json throughput")
      ?.benches.map((b) => b.name);
    expect(names).toEqual(["direct [k6] req/s", "nginx req/s", "direct [wrk] req/s"]);
  });

  it.each([
    ["s", "default", "throughput", "s throughput"],
    ["s", "100vus", "latency", "s (100vus) latency"],
  ] as const)("suiteName(%s, %s, %s)", (scenario, load, dir, expected) => {
    expect(suiteName(scenario, load, dir)).toBe(expected);
  });
});

describe("history page", () => {
  it("carries no names: everything comes from data.js through textContent", () => {
    const html = renderIndexHtml();
    expect(isOurPage(html)).toBe(true);
    expect(isOurPage("<html>github-action-benchmark</html>")).toBe(false);
    expect(html).not.toMatch(/innerHTML|insertAdjacentHTML|document\.write/);
    expect(html).toContain('<script src="data.js"></script>');
  });

  it.each([
    ["dev/bench", "dev/bench"],
    ["dev/bench/", "dev/bench"],
    [".", "."],
    ["a/../b", "b"],
  ])("--dir %s is %s", (dir, expected) => {
    expect(normaliseDir(dir)).toBe(expected);
  });

  it.each(["/abs", "..", "../up", "a/../../b"])("--dir %s is refused", (dir) => {
    expect(() => normaliseDir(dir)).toThrow(/--dir/);
  });
});

describe("suites from a real run", () => {
  it("publishes both proxies of the passthrough scenario", () => {
    const real = Results.parse(
      JSON.parse(readFileSync(path.join(FIXTURES, "real-run/results.json"), "utf8")),
    );
    const suites = buildSuites(real, { commit: commitInfo(real), date: 1 });
    expect([...suites.keys()]).toEqual(["passthrough throughput", "passthrough latency"]);
    const throughput = suites.get("passthrough throughput")!;
    expect(throughput.commit.id).toBe(real.environment.git.commit);
    expect(throughput.benches.map((b) => b.name)).toEqual(["direct req/s", "nginx req/s"]);
    for (const bench of throughput.benches) {
      expect(bench.value).toBeGreaterThan(0);
      expect(bench.range).toMatch(/^± \d/);
      expect(bench.extra).toContain("repetitions: 3");
    }
    const data = appendEntries(parseDataJs(realDataJs, "data.js"), suites, { now: 2 });
    expect(parseDataJs(serializeDataJs(data), "data.js").entries["passthrough latency"]).toHaveLength(1);
  });
});
