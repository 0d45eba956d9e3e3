import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { compareSettings, register, runCompare } from "../../src/commands/compare.js";
import {
  compareResults,
  comparisonHeadline,
  compareVariants,
  type Comparison,
} from "../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../src/report/compare-markdown.js";
import type { Results } from "../../src/results/schema.js";
import { cell, results, type RepSpec } from "./build.js";

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

describe("compareResults", () => {
  const baseRun = results([cell("direct", reps(20000, 4)), cell("nginx", reps(15000, 5))]);

  it("A/A: the same figures give unchanged everywhere", () => {
    const c = compareResults(baseRun, baseRun);
    expect(Object.values(verdicts(c))).toEqual(Array(8).fill("unchanged"));
    expect(comparisonHeadline(c)).toBe("0 regressions, 0 improvements, 8 unchanged, 0 inconclusive");
  });

  it("a 30% slower nginx regresses on every metric; direct stays unchanged", () => {
    const head = results([cell("direct", reps(20000, 4)), cell("nginx", reps(15000 / 1.3, 5 * 1.3))]);
    const c = compareResults(baseRun, head);
    expect(verdicts(c)).toEqual({
      "direct:rps": "unchanged",
      "direct:mean": "unchanged",
      "direct:p50": "unchanged",
      "direct:p99": "unchanged",
      "nginx:rps": "regressed",
      "nginx:mean": "regressed",
      "nginx:p50": "regressed",
      "nginx:p99": "regressed",
    });
    expect(comparisonHeadline(c)).toBe("4 regressions, 0 improvements, 4 unchanged, 0 inconclusive");
    const p50 = c.cells[1]?.metrics.find((m) => m.metric === "p50");
    expect(p50?.changePct).toBeCloseTo(30, 6);
    expect(p50?.pMethod).toBe("exact");
    expect(p50?.p).toBeCloseTo(2 / 3432, 12);
    expect(c.mode).toBe("unpaired");
    expect(c.label).toBe("unpaired: runs at different times");
    expect(c.tests).toBe(8);
    expect(c.confidence).toBeCloseTo(1 - 0.05 / 8, 12);
  });

  it("a faster proxy improves", () => {
    const head = results([cell("direct", reps(20000, 4)), cell("nginx", reps(15000 * 1.2, 5 / 1.2))]);
    expect(verdicts(compareResults(baseRun, head))["nginx:rps"]).toBe("improved");
  });

  it("3 against 3 repetitions can give no interval at the family's confidence, and says so", () => {
    const small = results([cell("nginx", reps(15000, 5, 3))]);
    const slow = results([cell("nginx", reps(7500, 10, 3))]);
    const c = compareResults(small, slow);
    expect(Object.values(verdicts(c))).toEqual(Array(4).fill("inconclusive"));
    expect(c.notes.join()).toMatch(
      /With 3 repetitions no interval at 98.75% exists \(4 tests at alpha 0.05\)/,
    );
    expect(renderComparisonMarkdown(c)).toMatch(/Run 5 or more repetitions/);
    expect(renderComparisonMarkdown(c)).toMatch(/unpaired: runs at different times/);
  });

  it("the note names the repetitions compared, not others (2 against 2)", () => {
    const c = compareResults(
      results([cell("nginx", reps(15000, 5, 2))]),
      results([cell("nginx", reps(7500, 10, 2))]),
    );
    const note = c.notes.join();
    expect(note).toMatch(/With 2 repetitions no interval/);
    expect(note).not.toMatch(/3 against 3/);
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

  it("is reproducible: the same inputs give the same intervals", () => {
    const head = results([cell("direct", reps(20500, 3.9)), cell("nginx", reps(14000, 5.4))]);
    expect(compareResults(baseRun, head)).toEqual(compareResults(baseRun, head));
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
      "## proxybench compare: 0 regressions, 0 improvements, 4 unchanged, 0 inconclusive",
    );
    expect(md).not.toMatch(/<b>|<script>/);
    expect(md).not.toMatch(/(^|[^\\])\| y/m);
  });

  it("can leave unchanged metrics out and counts them", () => {
    const base = results([cell("a", reps(100, 1))]);
    const md = renderComparisonMarkdown(compareResults(base, base), { showUnchanged: false });
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
  it("exits 1 on a regression with --fail-on-regression, 0 without, and writes --out", async () => {
    const baseDir = await writeResults(results([cell("nginx", reps(15000, 5))]));
    const headDir = await writeResults(results([cell("nginx", reps(10000, 8))]));
    const out = path.join(baseDir, "compare.md");
    expect(await compareCli([baseDir, headDir, "--out", out])).toBe(0);
    expect(await readFile(out, "utf8")).toMatch(/^## proxybench compare: 4 regressions/);
    expect(await compareCli([baseDir, headDir, "--fail-on-regression", "--out", out])).toBe(1);
    const json = path.join(baseDir, "compare.json");
    expect(await compareCli([baseDir, baseDir, "--format", "json", "--out", json])).toBe(0);
    const parsed = JSON.parse(await readFile(json, "utf8")) as Comparison;
    expect(parsed.counts).toEqual({ regressed: 0, improved: 0, unchanged: 4, inconclusive: 0 });
  });

  it.each([
    [{ threshold: "abc" }, /--threshold: expected a percentage/],
    [{ threshold: "-1" }, /--threshold/],
    [{ alpha: "1.5" }, /--alpha: expected a number between 0 and 1/],
    [{ format: "html" }, /--format: expected one of markdown, json/],
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
