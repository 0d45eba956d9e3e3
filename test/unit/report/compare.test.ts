import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { compareSettings, register, runCompare } from "../../../src/commands/compare.js";
import {
  compareResults,
  comparisonHeadline,
  compareVariants,
  type Comparison,
} from "../../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../../src/report/compare-markdown.js";
import type { BenchmarkData } from "../../../src/publish/datajs.js";
import { historyFromData } from "../../../src/report/compare-history.js";
import type { Results } from "../../../src/results/schema.js";
import { cell, results, type RepSpec } from "../../support/report/build.js";

/** Seven repetitions around (rps, p50) with a fixed ±1% pattern of noise. */
function reps(rps: number, p50: number, n = 7): RepSpec[] {
  const noise = [0, 0.01, -0.01, 0.005, -0.005, 0.008, -0.008];
  return Array.from({ length: n }, (_, i) => ({
    rps: rps * (1 + (noise[i] ?? 0)),
    p50: p50 * (1 - (noise[i] ?? 0)),
  }));
}

function verdicts(c: Comparison): Record<string, string> {
  const out: Record<string, string> = {};
  for (const cellComparison of c.cells) {
    for (const m of cellComparison.metrics) out[`${cellComparison.proxy}:${m.metric}`] = m.verdict;
  }
  return out;
}

/** A history of `runs` past runs of each proxy's cell: p50 medians around `p50` (±1%), rps around `rps`. */
function historyData(cells: Array<{ proxy: string; rps: number; p50: number }>, runs: number): BenchmarkData {
  const wobble = (i: number) => 1 + 0.01 * Math.sin(i * 1.7);
  const entry = (i: number, tool: string, benches: Array<{ name: string; value: number; unit: string }>) => ({
    commit: { author: {}, committer: {}, id: `past-${i}`, message: "m" },
    date: i,
    tool,
    benches,
  });
  const latency = Array.from({ length: runs }, (_, i) =>
    entry(
      i,
      "customSmallerIsBetter",
      cells.flatMap((c) => [
        { name: `${c.proxy} p50`, value: c.p50 * wobble(i), unit: "ms" },
        { name: `${c.proxy} p99`, value: c.p50 * 3 * wobble(i), unit: "ms" },
        { name: `${c.proxy} mean`, value: c.p50 * 1.1 * wobble(i), unit: "ms" },
      ]),
    ),
  );
  const throughput = Array.from({ length: runs }, (_, i) =>
    entry(
      i,
      "customBiggerIsBetter",
      cells.map((c) => ({ name: `${c.proxy} req/s`, value: c.rps / wobble(i), unit: "req/s" })),
    ),
  );
  return {
    lastUpdate: 0,
    repoUrl: "",
    entries: { "small latency": latency, "small throughput": throughput },
  };
}

describe("compareResults (unpaired: two runs at different times)", () => {
  const baseRun = results([cell("direct", reps(20000, 4)), cell("nginx", reps(15000, 5))]);
  const slowNginx = results([cell("direct", reps(20000, 4)), cell("nginx", reps(15000 / 1.3, 5 * 1.3))]);
  const past = (runs: number) =>
    historyFromData(
      historyData(
        [
          { proxy: "direct", rps: 20000, p50: 4 },
          { proxy: "nginx", rps: 15000, p50: 5 },
        ],
        runs,
      ),
      "data.js",
    );

  it("A/A of two runs: no verdict, whatever the figures", () => {
    const c = compareResults(baseRun, baseRun);
    expect(Object.values(verdicts(c))).toEqual(Array(8).fill("inconclusive"));
    expect(comparisonHeadline(c)).toBe("0 regressions, 0 improvements, 0 unchanged, 8 inconclusive");
    expect(c.cells[0]?.metrics[0]?.why).toMatch(/spread between runs is unknown/);
  });

  it("without a history, a 30% slower nginx is inconclusive with the observed change and why", () => {
    const c = compareResults(baseRun, slowNginx);
    expect(c.counts.regressed + c.counts.improved).toBe(0);
    const p50 = c.cells[1]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.verdict).toBe("inconclusive");
    expect(p50?.changePct).toBeCloseTo(30, 6);
    expect(p50?.why).toMatch(
      /^observed change \+30\.00%; runs at different times: the spread between runs is unknown/,
    );
    expect(p50?.p).toBeUndefined();
    expect(p50?.ci).toBeUndefined();
    expect(c.notes[0]).toMatch(/cannot be told from a change: no regression or improvement is shown/);
    expect(c.mode).toBe("unpaired");
    expect(c.label).toBe("unpaired: runs at different times");
    // no metric has a history, so none is tested: the family is empty
    expect(c.tests).toBe(0);
  });

  it("with a history: the family holds the metrics with past runs only", () => {
    const data = historyData([{ proxy: "nginx", rps: 15000, p50: 5 }], 30);
    const c = compareResults(baseRun, baseRun, { history: historyFromData(data, "data.js") });
    const all = c.cells.flatMap((cell) => cell.metrics);
    const withPast = all.filter((m) => m.pMethod === "history");
    expect(withPast.length).toBeGreaterThan(0);
    expect(withPast.length).toBeLessThan(all.length);
    expect(c.tests).toBe(withPast.length);
    // Holm's first step is at alpha over the metrics with history, not over every metric
    expect(Math.min(...withPast.map((m) => m.level!))).toBeCloseTo(0.05 / withPast.length, 10);
  });

  it("with the spread of 200 past runs known, the 30% slower nginx regresses and direct does not", () => {
    const c = compareResults(baseRun, slowNginx, { history: past(200) });
    expect(verdicts(c)).toEqual({
      "direct:rps": "inconclusive",
      "direct:mean": "inconclusive",
      "direct:p50": "inconclusive",
      "direct:p99": "inconclusive",
      "nginx:rps": "regressed",
      "nginx:mean": "regressed",
      "nginx:p50": "regressed",
      "nginx:p99": "regressed",
    });
    const p50 = c.cells[1]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.pMethod).toBe("history");
    // the smallest p with 200 past runs and the base run beside the head: 1/202
    expect(p50?.p).toBeCloseTo(1 / 202, 12);
    expect(p50?.why).toMatch(/outside the spread of 201 past runs and reaches 5%/);
    expect(c.cells[0]?.metrics[2]?.why).toMatch(/within the spread of 201 past runs/);
  });

  it("steal above the limit: those repetitions left out of a run's median of the figures that hold it, and said", () => {
    // the head's nginx: 3 quiet repetitions as the base's, 4 with 0.3 core stolen and 30% slower
    const stolenHead = () => {
      const nginx = cell("nginx", [...reps(15000, 5, 3), ...reps(15000 / 1.3, 5 * 1.3, 4)]);
      nginx.repetitions.forEach((r, i) => (r.noise = { otherCpu: 0, steal: i >= 3 ? 0.3 : 0 }));
      return nginx;
    };
    const head = results([cell("direct", reps(20000, 4)), stolenHead()]);
    const p50 = compareResults(baseRun, head, { history: past(200) }).cells[1]?.metrics.find(
      (m) => m.metric === "p50",
    );
    expect(p50?.verdict).toBe("inconclusive");
    expect(p50?.changePct).toBeCloseTo(0, 0);
    expect(p50?.why).toMatch(
      /within the spread of 201 past runs .*; 4 head repetitions left out of its median: steal above 0.05 core$/,
    );
    // with a limit above that steal, the same repetitions count, and the median regresses
    const lenient = results([cell("direct", reps(20000, 4)), stolenHead()], {
      settings: { ...head.settings, noiseLimit: 0.5 },
    });
    expect(verdicts(compareResults(baseRun, lenient, { history: past(200) }))["nginx:p50"]).toBe("regressed");
    // every repetition stolen: shown, not tested
    const everyStolen = results([cell("direct", reps(20000, 4)), cell("nginx", reps(15000, 5))]);
    for (const r of everyStolen.cells[1]!.repetitions) r.noise = { otherCpu: 0, steal: 0.3 };
    const c = compareResults(baseRun, everyStolen, { history: past(200) });
    const shownP50 = c.cells[1]?.metrics.find((m) => m.metric === "p50");
    expect(shownP50?.p).toBeUndefined();
    expect(shownP50?.why).toMatch(/not tested: steal above 0.05 core in every repetition of the head run/);
    expect(c.tests).toBe(4);
  });

  it("A/A with a history: no verdict", () => {
    const c = compareResults(baseRun, baseRun, { history: past(200) });
    expect(c.counts.regressed + c.counts.improved).toBe(0);
  });

  it("too few past runs for the family: no verdict, and the note says how many would do", () => {
    const c = compareResults(baseRun, slowNginx, { history: past(40) });
    expect(c.counts.regressed).toBe(0);
    // 8 tests at 0.05: Holm's first step 0.00625 needs 1/(r + 1) <= 0.00625
    expect(c.notes.join()).toMatch(
      /8 of 8 tested metrics have past runs in the history \(the fewest: 41\); 159 past runs/,
    );
  });

  it("past runs of the base or head commit are not counted twice", () => {
    const data = historyData([{ proxy: "nginx", rps: 15000, p50: 5 }], 3);
    data.entries["small latency"]![0]!.commit.id = "abc";
    const history = historyFromData(data, "data.js");
    const base = results([cell("nginx", reps(15000, 5))], {
      environment: {
        os: "linux",
        kernel: "k",
        arch: "x64",
        cpuModel: "c",
        cores: 2,
        loadAverage: [0, 0, 0],
        node: "v20",
        git: { commit: "abc" },
      },
    });
    const c = compareResults(base, base, { history });
    expect(c.cells[0]?.metrics.find((m) => m.metric === "p50")?.why).toMatch(/3 past runs/);
  });

  it("cells missing on one side or not ok get their own line, never a verdict", () => {
    const head = results([
      cell("direct", reps(20000, 4), { status: "invalid", reasons: ["502 from upstream"] }),
      cell("caddy", reps(9000, 6)),
    ]);
    const c = compareResults(baseRun, head);
    expect(c.cells).toHaveLength(0);
    expect(c.notCompared.map((n) => [n.proxy, n.reason])).toEqual([
      ["direct", "head is invalid (502 from upstream)"],
      ["caddy", "only in head (new cell)"],
      ["nginx", "only in base (missing in head)"],
    ]);
    expect(comparisonHeadline(c)).toBe(
      "0 regressions, 0 improvements, 0 unchanged, 0 inconclusive, 3 not compared",
    );
  });

  it("warns when a cell's load or the machine differs between base and head", () => {
    const head = results([cell("direct", reps(20000, 4)), cell("nginx", reps(15000, 5))], {
      environment: {
        os: "linux",
        kernel: "6.1.0",
        arch: "x64",
        cpuModel: "Other CPU",
        cores: 4,
        loadAverage: [0, 0, 0],
        node: "v20",
      },
    });
    const nginx = head.cells[1];
    if (nginx) nginx.load = { ...nginx.load, vus: 100 };
    const notes = compareResults(baseRun, head).notes.join("\n");
    expect(notes).toMatch(/different machines \(Test CPU, 2 cores against Other CPU, 4 cores\)/);
    expect(notes).toMatch(/small\/default\/nginx\/k6: the load differs/);
    expect(notes).not.toMatch(/direct\/k6: the load differs/);
  });

  it("is reproducible: the same inputs give the same figures", () => {
    const head = results([cell("direct", reps(20500, 3.9)), cell("nginx", reps(14000, 5.4))]);
    expect(compareResults(baseRun, head, { history: past(60) })).toEqual(
      compareResults(baseRun, head, { history: past(60) }),
    );
  });
});

describe("renderComparisonMarkdown", () => {
  it("starts with the headline and escapes names", () => {
    const evil = "<b>x</b> | y";
    const base = results([cell(evil, reps(100, 1))], {
      environment: {
        os: "linux",
        kernel: "k",
        arch: "x64",
        cpuModel: "c",
        cores: 2,
        loadAverage: [0, 0, 0],
        node: "v20",
        git: { commit: "abc", branch: "<script>" },
      },
    });
    const md = renderComparisonMarkdown(compareResults(base, base));
    expect(md.split("\n")[0]).toBe(
      "## proxybench compare: 0 regressions, 0 improvements, 0 unchanged, 4 inconclusive",
    );
    expect(md).not.toMatch(/<b>|<script>/);
    expect(md).not.toMatch(/(^|[^\\])\| y/m);
  });

  it("escapes a crafted cell id and reason in the list of cells not compared", () => {
    const evil = "<img src=x onerror=alert(1)> [link](http://x) @someone";
    const base = results([cell("nginx", reps(100, 1))]);
    const head = results([cell("nginx", reps(100, 1)), cell(evil, reps(90, 1.1))]);
    const comparison = compareResults(base, head);
    expect(comparison.notCompared.map((n) => n.id).join()).toContain("<img");
    const md = renderComparisonMarkdown(comparison);
    expect(md).toContain("Not compared:");
    expect(md).not.toContain("<img");
    expect(md).not.toContain("](http://x)");
    expect(md).not.toContain("@someone");
  });

  it("can leave unchanged metrics out and counts them", () => {
    const same = [
      cell("a", reps(100, 1, 10), { variant: "base" }),
      cell("a", reps(100, 1, 10), { variant: "head" }),
    ];
    const run = results(same, {
      settings: {
        proxies: ["a"],
        scenarios: ["small"],
        repetitions: 7,
        cpus: { loadgen: [0], proxy: [1], upstream: [1] },
        variants: [
          { name: "base", dir: "/b" },
          { name: "head", dir: "/h" },
        ],
      },
    });
    const md = renderComparisonMarkdown(compareVariants(run), { showUnchanged: false });
    expect(md).toContain("4 unchanged metrics not shown.");
    expect(md).not.toContain("| Cell");
  });
});

async function writeResults(r: Results): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "pb-compare-"));
  await writeFile(path.join(dir, "results.json"), JSON.stringify(r));
  return dir;
}

/** Runs `proxybench compare ARGS` through the command's own parser; returns the exit code. */
async function compareCli(args: string[]): Promise<number> {
  const program = new Command("proxybench").exitOverride();
  register(program);
  const previous = process.exitCode;
  try {
    await program.parseAsync(["compare", ...args], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } finally {
    process.exitCode = previous;
  }
}

describe("proxybench compare (CLI)", () => {
  it("two runs without a history: no verdict, so --fail-on-regression exits 0; writes --out", async () => {
    const baseDir = await writeResults(results([cell("nginx", reps(15000, 5))]));
    const headDir = await writeResults(results([cell("nginx", reps(10000, 8))]));
    const out = path.join(baseDir, "compare.md");
    // two runs without a history: no verdict, so nothing fails
    expect(await compareCli([baseDir, headDir, "--fail-on-regression", "--out", out])).toBe(0);
    expect(await readFile(out, "utf8")).toMatch(
      /^## proxybench compare: 0 regressions, 0 improvements, 0 unchanged, 4 inconclusive/,
    );
    // with --history (Apache Otava cuts each series at its last change point): test/processes/report/compare-history.test.ts
  });

  it("--history: a file that is not a data.js, or a paired run, is refused with the flag named", async () => {
    const dir = await writeResults(results([cell("nginx", reps(15000, 5))]));
    const bad = path.join(dir, "bad.js");
    await writeFile(bad, "var x = 1");
    // what is wrong with it, not what publish does with one (it refuses to overwrite it)
    const refused = await runCompare(compareSettings([dir, dir], { history: bad })).catch(
      (err: Error) => err.message,
    );
    expect(refused).toBe(
      `--history ${bad}: does not start with 'window.BENCHMARK_DATA =': not a github-action-benchmark data.js`,
    );
    await expect(
      runCompare(compareSettings([dir, dir], { history: path.join(dir, "none.js") })),
    ).rejects.toThrow(/--history .*none\.js: cannot read it/);
  });

  it.each([
    [{ threshold: "abc" }, /--threshold: expected a percentage/],
    [{ threshold: "-1" }, /--threshold/],
    [{ alpha: "1.5" }, /--alpha: expected a number between 0 and 1/],
    [{ format: "html" }, /--format html is for counted runs \(proxybench count\); these are wall-clock runs/],
    [{ format: "pdf" }, /--format: expected one of markdown, json/],
  ])("rejects %j", (options, message) => {
    expect(() => compareSettings(["a", "b"], options)).toThrow(message);
  });
});

describe("compareVariants (paired by round)", () => {
  /** Ten rounds with a drift shared by both variants of a round, and a ±1% wobble of its own. */
  function drifting(p50: number, factor: number, variant: string, rounds = 10): ReturnType<typeof cell> {
    const wobble = [0.004, -0.006, 0.002, -0.003, 0.007, -0.001, 0.005, -0.004, 0.001, -0.002];
    return cell(
      "nginx",
      Array.from({ length: rounds }, (_, i) => {
        const drift = 1 + 0.15 * Math.sin(i); // ±15% between rounds: larger than the effect
        const w = variant === "head" ? (wobble[i] ?? 0) : -(wobble[i] ?? 0);
        return { rps: 1000, p50: p50 * factor * drift * (1 + w) };
      }),
      { variant },
    );
  }
  const run = (factor: number, rounds = 10) =>
    results([drifting(5, 1, "base", rounds), drifting(5, factor, "head", rounds)], {
      settings: {
        proxies: ["nginx"],
        scenarios: ["small"],
        repetitions: rounds,
        cpus: { loadgen: [0], proxy: [1], upstream: [1] },
        variants: [
          { name: "base", dir: "/b" },
          { name: "head", dir: "/h" },
        ],
      },
    });

  it("finds a +10% p50 through a drift of ±15% that an unpaired test cannot see past", () => {
    const paired = compareVariants(run(1.1));
    expect(paired.mode).toBe("paired");
    expect(paired.label).toBe("paired over 10 rounds");
    const p50 = paired.cells[0]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.verdict).toBe("regressed");
    expect(p50?.hlChangePct).toBeGreaterThan(8);
    expect(p50?.hlChangePct).toBeLessThan(12);
    expect(paired.base.variant).toBe("base");
    const r = run(1.1);
    const unpaired = compareResults(
      { ...r, cells: r.cells.filter((c) => c.variant === "base") },
      { ...r, cells: r.cells.filter((c) => c.variant === "head") },
    );
    expect(unpaired.cells[0]?.metrics.find((m) => m.metric === "p50")?.verdict).toBe("inconclusive");
  });

  it("A/A through the same drift: unchanged, never a verdict", () => {
    const c = compareVariants(run(1));
    expect(Object.values(verdicts(c))).toEqual(Array(4).fill("unchanged"));
  });

  it("too few rounds: inconclusive, saying how many rounds would give an interval", () => {
    const c = compareVariants(run(1.1, 4));
    expect(Object.values(verdicts(c))).toEqual(Array(4).fill("inconclusive"));
    expect(c.notes.join()).toMatch(/With 4 rounds no interval at 98.75% exists .* Run 8 or more rounds/);
    expect(c.cells[0]?.metrics[2]?.more).toBe(4);
  });

  it("names the variants it can pick, and refuses a run without variants", () => {
    expect(() => compareVariants(run(1), { base: "main" })).toThrow(
      /--base: no variant 'main' in this run \(its variants: base, head\)/,
    );
    expect(() => compareVariants(results([cell("nginx", reps(1, 1))]))).toThrow(/holds no variants/);
    expect(compareVariants(run(1), { base: "head", head: "base" }).base.variant).toBe("head");
  });

  it("compare RUN_DIR reads one run and pairs it; --base with two dirs is refused", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-paired-"));
    await writeFile(path.join(dir, "results.json"), JSON.stringify(run(1.1)));
    const out = path.join(dir, "cmp.md");
    expect(await compareCli([dir, "--fail-on-regression", "--out", out])).toBe(1);
    expect(await readFile(out, "utf8")).toMatch(/paired over 10 rounds/);
    const plain = await mkdtemp(path.join(tmpdir(), "pb-plain-"));
    await writeFile(path.join(plain, "results.json"), JSON.stringify(results([cell("nginx", reps(1, 1))])));
    await expect(runCompare(compareSettings([plain, plain], { base: "x" }))).rejects.toThrow(
      /--base\/--head pick variants of a variant run: these two runs hold none/,
    );
    await expect(runCompare(compareSettings([dir, plain], {}))).rejects.toThrow(
      /compare: .*pb-plain-\w+ holds no variants: give the shards of one variant run, or exactly two runs/,
    );
  });

  it("compare takes the shards of one variant run, merged and paired", async () => {
    const shards: string[] = [];
    for (const proxy of ["nginx", "haproxy"]) {
      const r = run(1.1);
      r.cells = r.cells.map((c) => ({ ...c, proxy, id: c.id.replace("nginx", proxy) }));
      r.environment.hostname = `host-${proxy}`;
      const d = await mkdtemp(path.join(tmpdir(), `pb-shard-${proxy}-`));
      await writeFile(path.join(d, "results.json"), JSON.stringify(r));
      shards.push(d);
    }
    const json = path.join(shards[0]!, "cmp.json");
    expect(await compareCli([...shards, "--format", "json", "--out", json])).toBe(0);
    const parsed = JSON.parse(await readFile(json, "utf8")) as Comparison;
    expect(parsed.mode).toBe("paired");
    expect(parsed.cells.map((c) => c.proxy)).toEqual(["nginx", "haproxy"]);
    expect(parsed.cells.map((c) => c.runner)).toEqual(["host-nginx", "host-haproxy"]);
    const md = path.join(shards[0]!, "cmp.md");
    expect(await compareCli([...shards, "--out", md])).toBe(0);
    expect(await readFile(md, "utf8")).toContain("· **haproxy** (k6) on host-haproxy");
  });
});

describe("compareVariants: the tested family, Holm and the looks", () => {
  const times = (n: number, factor: number): number[] => Array.from({ length: n }, () => factor);
  const variants = [
    { name: "base", dir: "/b" },
    { name: "head", dir: "/h" },
  ];
  /** A variant run of these cells, with a plan when given. */
  function variantRun(
    cells: Array<ReturnType<typeof cell>>,
    sequential?: Results["settings"]["sequential"],
  ): Results {
    return results(cells, {
      settings: {
        proxies: [...new Set(cells.map((c) => c.proxy))],
        scenarios: ["small"],
        repetitions: Math.max(...cells.map((c) => c.repetitions.length)),
        cpus: { loadgen: [0], proxy: [1], upstream: [1] },
        variants,
        ...(sequential ? { sequential } : {}),
      },
    });
  }
  /** A base cell and its head twin: head's p50 (and mean, p99) times factors[i] in round i, rps divided. */
  function twin(proxy: string, factors: number[], p50 = 5): Array<ReturnType<typeof cell>> {
    const drift = (i: number) => 1 + 0.1 * Math.sin(i * 2.3);
    return [
      cell(
        proxy,
        factors.map((_, i) => ({ rps: 1000 * drift(i), p50: p50 * drift(i) })),
        { variant: "base" },
      ),
      cell(
        proxy,
        factors.map((f, i) => ({ rps: (1000 * drift(i)) / f, p50: p50 * drift(i) * f })),
        { variant: "head" },
      ),
    ];
  }
  const arrivalRate = (c: ReturnType<typeof cell>) => ({
    ...c,
    load: { label: "default", model: "constant-arrival-rate" as const, rate: 1000, vus: 32, durationS: 10 },
  });

  it("requests/sec under a fixed arrival rate is shown, not tested: no alpha spent on it", () => {
    const fixed = compareVariants(variantRun(twin("nginx", times(10, 1.2)).map(arrivalRate)));
    expect(fixed.tests).toBe(3);
    expect(fixed.cells[0]?.metrics.map((m) => m.metric)).toEqual(["mean", "p50", "p99"]);
    expect(fixed.cells[0]?.shown.map((m) => [m.metric, m.why])).toEqual([
      ["rps", "fixed by the load (constant-arrival-rate at 1000/s): shown, not tested"],
    ]);
    expect(fixed.counts.regressed).toBe(3);
    expect(renderComparisonMarkdown(fixed)).toMatch(/Requests\/sec .* not tested \(fixed by the load\)/);
    // a closed model: the rate is what the proxy reached, tested
    const closed = compareVariants(variantRun(twin("nginx", times(10, 1.2))));
    expect(closed.tests).toBe(4);
    expect(closed.cells[0]?.shown).toEqual([]);
  });

  it("Holm decides where Bonferroni cannot, each interval at the level Holm tested it at", () => {
    // nginx: every round +20% (p = 2/1024); haproxy: up in 9 rounds, down 3% in one whose size
    // ranks third (W- = 3, p = 10/1024)
    const haproxy = [1.01, 1.02, 0.97, 1.1, 1.12, 1.14, 1.15, 1.16, 1.17, 1.18];
    const c = compareVariants(variantRun([...twin("nginx", times(10, 1.2)), ...twin("haproxy", haproxy)]));
    expect(c.tests).toBe(8);
    const p50 = c.cells[1]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.p).toBeCloseTo(10 / 1024, 12);
    // Bonferroni's level, 0.05/8 = 0.00625, is below this p: it would not decide
    expect(p50?.p).toBeGreaterThan(0.05 / 8);
    expect(p50?.verdict).toBe("regressed");
    expect(p50?.rejected).toBe(true);
    // haproxy's four metrics come after nginx's four: steps 5 to 8, p50 the 7th
    expect(p50?.level).toBeCloseTo(0.05 / 2, 12);
    expect(p50?.ciConfidence).toBeGreaterThanOrEqual(1 - 0.05 / 2);
    expect(p50?.ci?.[0]).toBeGreaterThan(0);
    expect(c.counts.regressed).toBe(8);
    expect(c.confidence).toBeCloseTo(1 - 0.05 / 8, 12);
  });

  it("at planned looks: a metric decided at the first look stays decided; the others go on", () => {
    // +30% in the first 10 rounds, then the change reverses: the first look (10 rounds) decided it
    const factors = [...times(10, 1.3), ...times(6, 0.7)];
    const plan = {
      alpha: 0.05,
      tests: 4,
      looks: [
        { rounds: 10, alpha: 0.0125 },
        { rounds: 16, alpha: 0.0375 },
      ],
    };
    const c = compareVariants(variantRun(twin("nginx", factors), plan));
    expect(c.planned).toBe(true);
    const p50 = c.cells[0]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.verdict).toBe("regressed");
    expect(p50?.look).toBe(1);
    expect(p50?.n).toBe(10);
    // Holm's third step of four at 0.0125 (rps, mean, p50, p99 share one p)
    expect(p50?.level).toBeCloseTo(0.0125 / 2, 12);
    expect(c.looks).toEqual([
      { rounds: 10, alpha: 0.0125, cells: 1, decided: 4 },
      { rounds: 16, alpha: 0.0375, cells: 1, decided: 0 },
    ]);
    expect(renderComparisonMarkdown(c)).toMatch(
      /\*\*Rounds\*\* \(--repetitions auto, planned before the run\): 10 rounds \(alpha 0\.013\): 1 cell, 4 decided; 16 rounds/,
    );
    // the same rounds without the plan: one look at all 16, where the reversal hides the change
    const flat = compareVariants(variantRun(twin("nginx", factors)));
    expect(flat.cells[0]?.metrics.find((m) => m.metric === "p50")?.verdict).toBe("inconclusive");
  });

  it("a metric whose cell stopped before a look is not tested there (p = 1), and the others keep their levels", () => {
    const plan = {
      alpha: 0.05,
      tests: 8,
      looks: [
        { rounds: 12, alpha: 0.0125 },
        { rounds: 16, alpha: 0.0375 },
      ],
    };
    const short = twin("nginx", times(12, 1.2));
    const long = twin(
      "haproxy",
      Array(16)
        .fill(1.0)
        .map((_, i) => (i % 2 ? 1.04 : 0.97)),
    );
    const c = compareVariants(variantRun([...short, ...long], plan));
    expect(c.looks.map((l) => l.cells)).toEqual([2, 1]);
    expect(c.cells[0]?.metrics.every((m) => m.look === 1 && m.verdict === "regressed")).toBe(true);
  });

  it("an undecided metric says the smallest change these rounds could have detected", () => {
    const noisy = [1.2, 0.85, 1.1, 0.9, 1.15, 0.8, 1.05, 0.95, 1.25, 0.9];
    const c = compareVariants(variantRun(twin("nginx", noisy)));
    const p50 = c.cells[0]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.verdict).toBe("inconclusive");
    expect(p50?.detectablePct).toBeGreaterThan(10);
    expect(renderComparisonMarkdown(c)).toMatch(/inconclusive \(detects ±\d+\.\d% at 80% power/);
  });
});
