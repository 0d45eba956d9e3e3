import { describe, expect, it } from "vitest";
import { formatMs } from "../../../src/render/format.js";
import { renderHtmlReport } from "../../../src/report/html.js";
import { reportJson } from "../../../src/report/json.js";
import { renderMarkdownReport } from "../../../src/report/markdown.js";
import { buildReport } from "../../../src/report/model.js";
import type { Cell } from "../../../src/results/schema.js";
import { cell, costly, results, roundsOf } from "../../support/report/build.js";
import { tableAfter } from "../../support/report/markdown.js";

/** Rows of the markdown table that starts with `| first `, without its separator row. */
function table(markdown: string, first: string): string[][] {
  const rows = tableAfter(markdown, `| ${first} `);
  return [rows[0]!, ...rows.slice(2)];
}

/** The comparison table's % cells of the column after `proxy`'s (header row left out). */
function changesOf(markdown: string, proxy: string): string[] {
  const rows = table(markdown, "metric");
  const at = rows[0]!.indexOf(proxy) + 1;
  return rows
    .slice(1)
    .map((r) => r[at]!)
    .filter((c) => c !== "");
}

/** The latency table's cells of `proxy`'s row, one per stat from Min to Max. */
function latencyRow(markdown: string, proxy: string): string[] {
  return table(markdown, "Proxy")
    .find((r) => r[0] === proxy)!
    .slice(1);
}

/** The latency table's deltas of `proxy`'s row: what follows each value's `<br>` (Min and Max have none). */
function deltasOf(markdown: string, proxy: string): string[] {
  return latencyRow(markdown, proxy).flatMap((c) => c.split("<br>").slice(1));
}

/** The settings of a run built by results(), to override one of them. */
const SETTINGS = {
  proxies: ["direct", "nginx"],
  scenarios: ["small"],
  repetitions: 11,
  cpus: { loadgen: [0], proxy: [1], upstream: [1] },
};

const INTERVAL = /\([+-]\d+\.\d\d to [+-]\d+\.\d\d\)$/;

/** nginx and an identical copy of its folder under another name, measured in the same rounds. */
const identical = (n: number, copy = "nginx-copy") =>
  results([cell("nginx", roundsOf(n, { seed: 1 })), cell(copy, roundsOf(n, { seed: 2 }))]);

describe("changes against the baseline: what the noise allows", () => {
  it("two identical proxies under different names: every change within noise, each with its interval", () => {
    const md = renderMarkdownReport(identical(10));
    const changes = changesOf(md, "nginx-copy");
    expect(changes).toHaveLength(4); // req/s, mean, p50, p99: no errors to compare, max never
    for (const c of changes) expect(c).toMatch(/^~ [+-]\d+\.\d\d% /);
    for (const c of changes) expect(c).toMatch(INTERVAL);
    const deltas = deltasOf(md, "nginx-copy");
    expect(deltas).toHaveLength(5); // mean, p50, p90, p95, p99
    for (const d of deltas)
      expect(d).toMatch(/^\(~ [+-]\d+\.\d{2,4}; [+-]\d+\.\d{2,4} to [+-]\d+\.\d{2,4}\)$/);
    expect(md).toContain("Each change is paired by round with the baseline over 10 rounds");
    expect(md).toContain("Holm over the 6 changes of the run's tables at alpha 0.05");
    expect(md).toContain("`~`: within noise, its interval includes 0 or it is under 5%.");
  });

  it("min and max, one request each, are shown with their spread and never compared, and the note says so", () => {
    // slower in every round by 50%: every other figure differs, the extremes still show no change
    const run = results([
      cell("direct", roundsOf(10, { seed: 1 })),
      cell("nginx", roundsOf(10, { factor: 1.5, seed: 2 })),
    ]);
    const md = renderMarkdownReport(run, { spread: true });
    const max = table(md, "metric").find((r) => r[0] === "Max latency (ms)")!;
    expect(max[2]).toMatch(/^\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\)$/);
    expect(max[3]).toBe("");
    const row = latencyRow(md, "nginx");
    for (const extreme of [row[0]!, row.at(-1)!])
      expect(extreme).toMatch(/^\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\)$/);
    expect(md).toContain(
      "Min and Max latency are one request each (the fastest and the slowest): shown, never compared.",
    );
    const json = reportJson(buildReport(run));
    const nginx = json.groups[0]!.tables.latency.rows[1]!.cells;
    expect(nginx[0]).not.toHaveProperty("delta");
    expect(nginx.at(-1)).not.toHaveProperty("delta");
    expect(nginx[2]!.withinNoise).toBe(false);
  });

  it("a change and its interval get the digits to never read +0.00 where they are not 0", () => {
    // nginx 0.3% above a baseline of 1 ms in every round: a delta of about +0.003 ms
    const run = results([
      cell("direct", roundsOf(10, { noise: 0.0005, seed: 1 })),
      cell("nginx", roundsOf(10, { factor: 1.003, noise: 0.0005, seed: 2 })),
    ]);
    const [, p50] = deltasOf(renderMarkdownReport(run), "nginx");
    const [, delta, low, high] = /^\(~ ([+-][\d.]+); ([+-][\d.]+) to ([+-][\d.]+)\)$/.exec(p50!)!;
    for (const figure of [delta, low, high]) expect(Number(figure)).toBeGreaterThan(0);
    expect(delta).toMatch(/^\+0\.00\d{1,2}$/);
  });

  it("a proxy slower in every round: its change has an interval that excludes 0, and no ~", () => {
    const run = results([
      cell("direct", roundsOf(10, { seed: 1 })),
      cell("nginx", roundsOf(10, { factor: 1.2, seed: 2 })),
    ]);
    const md = renderMarkdownReport(run);
    const p50 = table(md, "metric").find((r) => r[0] === "p50 latency (ms)")![3]!;
    const [, low, high] = /\(([+-][\d.]+) to ([+-][\d.]+)\)$/.exec(p50)!.map(Number);
    expect(p50).toMatch(/^\+\d+\.\d\d% /);
    expect(low).toBeGreaterThan(0);
    expect(high).toBeGreaterThanOrEqual(low!);
    expect(deltasOf(md, "nginx")[1]).toMatch(/^\(\+\d+\.\d\d; \+\d+\.\d\d to \+\d+\.\d\d\)$/);
    // requests/sec, the same load on both: within noise
    expect(table(md, "metric").find((r) => r[0] === "Requests/sec")![3]).toMatch(/^~ /);
  });

  it("a change under 5% in every round is ~ though its interval excludes 0 (as compare calls it unchanged)", () => {
    // what is fixed for one process, as two identical nginx's peak memory, does not cancel between rounds
    const run = results([
      cell("nginx", roundsOf(10, { noise: 0.004, seed: 1 })),
      cell("nginx-copy", roundsOf(10, { factor: 1.02, noise: 0.004, seed: 2 })),
    ]);
    const p50 = table(renderMarkdownReport(run), "metric").find((r) => r[0] === "p50 latency (ms)")![3]!;
    const [, low] = /\(([+-][\d.]+) to/.exec(p50)!.map(Number);
    expect(p50).toMatch(/^~ \+\d\.\d\d% /);
    expect(low).toBeGreaterThan(0);
  });

  it("too few repetitions for any interval: said once, with how many would give one, and every change ~", () => {
    const run = results([
      cell("direct", roundsOf(3, { seed: 1 })),
      cell("nginx", roundsOf(3, { factor: 1.4, seed: 2 })),
      cell("haproxy", roundsOf(3, { factor: 1.5, seed: 3 })),
    ]);
    const md = renderMarkdownReport(run);
    const note =
      "With 3 repetitions per proxy no change here has an interval (Holm over the 12 changes of the run's tables at alpha 0.05 needs 9: --repetitions 9), so every change is marked `~`: not told apart from noise.";
    expect(md.split(note)).toHaveLength(2);
    for (const proxy of ["nginx", "haproxy"]) {
      for (const c of changesOf(md, proxy)) expect(c).toMatch(/^~ \+\d+\.\d\d%$/);
      for (const d of deltasOf(md, proxy)) expect(d).toMatch(/^\(~ \+\d+\.\d\d\)$/);
    }
  });

  it("the family is the run's: a shift in every round shows beside one proxy, not beside five", () => {
    const shifted = (others: number) =>
      results([
        cell("direct", roundsOf(9, { seed: 1 })),
        cell("nginx", roundsOf(9, { factor: 1.06, seed: 2 })),
        ...Array.from({ length: others }, (_, i) => cell(`copy${i}`, roundsOf(9, { seed: 3 + i }))),
      ]);
    const p50 = (md: string) => table(md, "metric").find((r) => r[0] === "p50 latency (ms)")![3]!;
    // 6 changes: 9 rounds reach Holm's first step (2/2^9 <= 0.05/6); 30 changes need 11 rounds
    expect(p50(renderMarkdownReport(shifted(0)))).toMatch(/^\+\d+\.\d\d% \(\+/);
    const five = renderMarkdownReport(shifted(4));
    expect(p50(five)).toMatch(/^~ \+\d+\.\d\d%$/);
    expect(five).toContain(
      "Holm over the 30 changes of the run's tables at alpha 0.05 needs 11: --repetitions 11",
    );
  });

  it("a round of steal above the noise limit is left out of the changes that hold stolen time, as compare leaves it", () => {
    // nginx 20% slower in every round but two, where the hypervisor stole 0.3 core and nginx read faster
    const stolen = new Set([3, 7]);
    const nginx = cell("nginx", roundsOf(11, { factor: 1.2, seed: 2 }));
    nginx.repetitions = nginx.repetitions.map((r, i) =>
      stolen.has(i)
        ? {
            ...r,
            latencyMs: { ...r.latencyMs, p50: r.latencyMs.p50 / 2 },
            noise: { otherCpu: 0, steal: 0.3 },
          }
        : r,
    );
    const run = (noiseLimit: number) =>
      buildReport(
        results([cell("direct", roundsOf(11, { seed: 1 })), nginx], {
          settings: { ...SETTINGS, noiseLimit },
        }),
      );
    const p50 = (limit: number) =>
      run(limit).groups[0]!.columns.find((c) => c.proxy === "nginx")!.changes!.p50!;
    expect(p50(0.05)).toMatchObject({ rounds: 9, stolen: 2, differs: true });
    // the same rounds under a limit the steal stays below: all 11 tested, the two pull it into noise
    expect(p50(0.5)).toMatchObject({ rounds: 11, stolen: 0, differs: false });
    const md = renderMarkdownReport(
      results([cell("direct", roundsOf(11, { seed: 1 })), nginx], {
        settings: { ...SETTINGS, noiseLimit: 0.05 },
      }),
    );
    expect(md).toContain(
      "Steal above the noise limit left up to 2 rounds out of the tests of 6 changes whose figures hold stolen time (see Steal above).",
    );
    expect(md).toMatch(/\*\*Steal\*\*: /);
  });

  it("a baseline whose figures are bounds gives no interval: every change ~, and the line says why", () => {
    const bound = roundsOf(10, { seed: 1 }).map((r) => ({ ...r, status: "loadgen-bound" as const }));
    const md = renderMarkdownReport(
      results([
        cell("direct", bound, { status: "loadgen-bound", reasons: ["k6 dropped iterations"] }),
        cell("nginx", roundsOf(10, { factor: 1.2, seed: 2 })),
      ]),
    );
    for (const c of changesOf(md, "nginx")) expect(c).toMatch(/^~ [+-]\d+\.\d\d%$/);
    expect(md).toContain("No change here has an interval: the baseline's figures are bounds");
  });

  it.each([
    ["on two machines (shards merged)", (c: Cell): Cell => ({ ...c, runner: "runner-2" })],
    [
      "one after the other (a --resume)",
      (c: Cell): Cell => ({
        ...c,
        repetitions: c.repetitions.map((r) => ({ ...r, startedAt: r.startedAt.replace("T13", "T14") })),
      }),
    ],
  ])("cells measured apart, %s, do not pair: every change ~, and the line says why", (_, apart) => {
    const md = renderMarkdownReport(
      results([
        cell("direct", roundsOf(10, { seed: 1 })),
        apart(cell("nginx", roundsOf(10, { factor: 1.5, seed: 2 }))),
      ]),
    );
    for (const c of changesOf(md, "nginx")) expect(c).toMatch(/^~ [+-]\d+\.\d\d%$/);
    expect(md).toContain("cells measured apart: other shards or a --resume");
  });

  it("the family is the run's: another scenario's table widens it, as compare's spans every cell", () => {
    const scenario = (name: string, factor: number) => [
      cell("direct", roundsOf(8, { seed: 1 }), { scenario: name }),
      cell("nginx", roundsOf(8, { factor, seed: 2 }), { scenario: name }),
    ];
    const p50 = (md: string) => table(md, "metric").find((r) => r[0] === "p50 latency (ms)")![3]!;
    // one scenario: 6 changes, 8 rounds reach Holm's first step; two: 12 changes need 9
    expect(p50(renderMarkdownReport(results(scenario("a", 1.06))))).toMatch(/^\+\d+\.\d\d% \(\+/);
    const two = renderMarkdownReport(results([...scenario("a", 1.06), ...scenario("b", 1)]));
    expect(p50(two)).toMatch(/^~ \+\d+\.\d\d%$/);
    expect(two.split("Holm over the 12 changes of the run's tables at alpha 0.05 needs 9")).toHaveLength(3);
  });

  it("pairs by round, not by the order repetitions were written in", () => {
    // the machine drifts by up to 30% between rounds, more than nginx's 20%
    const base = cell("direct", roundsOf(10, { drift: 0.3, seed: 1 }));
    const head = cell("nginx", roundsOf(10, { factor: 1.2, drift: 0.3, seed: 2 }));
    const withRounds = (c: Cell): Cell => ({
      ...c,
      repetitions: c.repetitions.map((r) => ({ ...r, round: r.index })),
    });
    // written rotated by five rounds: in the order of the file, round 5 comes first
    const rotated = withRounds(head);
    rotated.repetitions.push(...rotated.repetitions.splice(0, 5));
    const group = buildReport(results([withRounds(base), rotated])).groups[0]!;
    const nginx = group.columns.find((c) => c.proxy === "nginx")!;
    expect(nginx.changes?.p50?.differs).toBe(true);
    expect(nginx.changes?.p50?.estimatePct).toBeGreaterThan(15);
    expect(nginx.changes?.p50?.estimatePct).toBeLessThan(25);
  });

  it("requests per CPU-second: the same test as CPU per request, its interval inverted", () => {
    const cpu = (factor: number) =>
      Array.from({ length: 10 }, (_, i) => 40 * factor * (1 + 0.02 * Math.sin(i * 7)));
    const run = results([
      costly(cell("nginx", roundsOf(10, { seed: 1 })), cpu(1)),
      costly(cell("haproxy", roundsOf(10, { seed: 2 })), cpu(0.8)),
    ]);
    const json = reportJson(buildReport(run));
    const rows = json.groups[0]!.tables.comparison.rows;
    const of = (metric: string) => rows.find((r) => r.metric === metric)!.cells[1]!;
    const [low, high] = of("cpuPerRequest").interval!;
    expect(high).toBeLessThan(0);
    expect(of("requestsPerCpuS").interval![0]).toBeCloseTo((1 / (1 + high / 100) - 1) * 100, 9);
    expect(of("requestsPerCpuS").interval![1]).toBeCloseTo((1 / (1 + low / 100) - 1) * 100, 9);
    expect(of("cpuPerRequest").withinNoise).toBe(false);
    expect(of("requestsPerCpuS").withinNoise).toBe(false);
    // one test for both rows: 6 latency and req/s changes, CPU and memory
    expect(json.groups[0]!.noise?.tests).toBe(8);
  });

  it("what compare never tests stays out of the family: req/s at a fixed arrival rate, a running peak", () => {
    const cpu = Array.from({ length: 10 }, (_, i) => 40 * (1 + 0.02 * Math.sin(i * 7)));
    const atRate = (c: Cell, memory: number, peakSince: "repetition" | "start"): Cell => {
      const priced = costly(c, cpu, memory);
      return {
        ...priced,
        load: { label: "default", model: "constant-arrival-rate", rate: 1000, vus: 32, durationS: 2 },
        repetitions: priced.repetitions.map((r) => ({ ...r, proxyCost: { ...r.proxyCost!, peakSince } })),
      };
    };
    // the copy serves 20% fewer requests and holds 20% more memory in every round
    const run = (peakSince: "repetition" | "start") =>
      results([
        atRate(cell("nginx", roundsOf(10, { seed: 1 })), 12.5, peakSince),
        atRate(cell("nginx-copy", roundsOf(10, { seed: 2, rps: 800 })), 15, peakSince),
      ]);
    const of = (peakSince: "repetition" | "start", metric: string) => {
      const rows = reportJson(buildReport(run(peakSince))).groups[0]!.tables.comparison.rows;
      return rows.find((r) => r.metric === metric)!.cells[1]!;
    };
    expect(of("repetition", "rps")).toMatchObject({ withinNoise: true });
    expect(of("repetition", "rps").interval).toBeUndefined();
    expect(of("repetition", "peakMemory")).toMatchObject({ withinNoise: false });
    expect(of("start", "peakMemory")).toMatchObject({ withinNoise: true });
    expect(of("start", "peakMemory").interval).toBeUndefined();
    // 5 latency changes and CPU; peak memory too while it is read per repetition
    expect(reportJson(buildReport(run("repetition"))).groups[0]!.noise?.tests).toBe(7);
    expect(reportJson(buildReport(run("start"))).groups[0]!.noise?.tests).toBe(6);
  });

  it("the JSON report has each change's interval and whether it is within noise", () => {
    const json = reportJson(buildReport(identical(10)));
    const p50 = json.groups[0]!.tables.comparison.rows.find((r) => r.metric === "p50")!.cells[1]!;
    expect(p50.withinNoise).toBe(true);
    expect(p50.interval![0]).toBeLessThan(0);
    expect(p50.interval![1]).toBeGreaterThan(0);
    expect(json.groups[0]!.noise).toEqual({
      alpha: 0.05,
      thresholdPct: 5,
      tests: 6,
      rounds: 10,
      roundsNeeded: 8,
    });
  });

  it("--spread: each value with its lowest and highest across the repetitions", () => {
    const run = identical(10);
    const md = renderMarkdownReport(run, { spread: true });
    const p50s = run.cells[0]!.repetitions.map((r) => r.latencyMs.p50);
    const p50 = table(md, "metric").find((r) => r[0] === "p50 latency (ms)")![1]!;
    expect(p50).toBe(
      `${formatMs(buildReport(run).groups[0]!.columns[0]!.values!.latencyMs.p50!)} (${formatMs(Math.min(...p50s))}–${formatMs(Math.max(...p50s))})`,
    );
    expect(renderMarkdownReport(run)).not.toContain("–");
  });

  it("a crafted proxy name is still escaped, and its row keeps the table's cell count", () => {
    const evil = "<img src=x onerror=alert(1)> | x";
    const md = renderMarkdownReport(identical(10, evil));
    expect(md).not.toContain("<img");
    const rows = table(md, "metric");
    for (const row of rows) expect(row).toHaveLength(rows[0]!.length);
    for (const row of table(md, "Proxy")) expect(row).toHaveLength(8);
    expect(rows[1]![3]).toMatch(/^~ /);
    const html = renderHtmlReport(identical(10, evil), { chartJs: "/* Chart.js stand-in */" });
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt; | x");
    expect(html).toMatch(/<td class="pct noise">~ [+-]\d+\.\d\d% \([+-]\d+\.\d\d to [+-]\d+\.\d\d\)<\/td>/);
    expect(html).toContain("<code>~</code>: within noise, its interval includes 0 or it is under 5%.");
  });
});
