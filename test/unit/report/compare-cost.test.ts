import { describe, expect, it } from "vitest";
import { compareResults, compareVariants } from "../../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../../src/report/compare-markdown.js";
import { Results, type Cell, type ProxyCost } from "../../../src/results/schema.js";
import { cell, results } from "../../support/report/build.js";

/** The proxy's cost of one repetition, as the runner records it (src/measures/wall-clock/proxy-cost.ts). */
function cost(cpuPerRequestUs: number, peakMemoryMiB: number): ProxyCost {
  const cpuS = (cpuPerRequestUs * 10_000) / 1e6;
  return {
    source: "proc",
    cpuS,
    idleCpuS: 0,
    windowS: 10,
    cpuPerRequestUs,
    requestsPerCpuS: 10_000 / cpuS,
    peakMemoryMiB,
  };
}

function costly(c: Cell, cpu: number[], memory = 12.5): Cell {
  return { ...c, repetitions: c.repetitions.map((r, i) => ({ ...r, proxyCost: cost(cpu[i]!, memory) })) };
}

const reps = (n: number) => Array.from({ length: n }, () => ({ rps: 1000, p50: 1 }));
/** Same latency, a little jitter in the CPU/request: what a quiet run gives. */
const jitter = (n: number, level: number) =>
  Array.from({ length: n }, (_, i) => level * (1 + ((i % 3) - 1) * 0.01));

describe("the proxy's cost in compare", () => {
  const rounds = 12;
  const variantRun = (headCpu: number) =>
    Results.parse({
      ...results([]),
      schemaVersion: 2,
      settings: { ...results([]).settings, proxies: ["direct", "nginx"], repetitions: rounds },
      cells: [
        cell("direct", reps(rounds), { variant: "base" }),
        costly(cell("nginx", reps(rounds), { variant: "base" }), jitter(rounds, 40)),
        cell("direct", reps(rounds), { variant: "head" }),
        costly(cell("nginx", reps(rounds), { variant: "head" }), jitter(rounds, headCpu)),
      ],
    });

  it("tests CPU/request and peak memory paired for a proxy that measured them, not for direct", () => {
    const comparison = compareVariants(variantRun(52));
    const metrics = (proxy: string) =>
      comparison.cells.find((c) => c.proxy === proxy)!.metrics.map((m) => m.metric);
    expect(metrics("nginx")).toEqual(expect.arrayContaining(["cpuPerRequest", "peakMemory"]));
    expect(metrics("direct")).not.toContain("cpuPerRequest");
    const nginx = comparison.cells.find((c) => c.proxy === "nginx")!;
    const cpu = nginx.metrics.find((m) => m.metric === "cpuPerRequest")!;
    // +30% CPU per request in every one of 12 rounds, latency the same: a regression on CPU only
    expect(cpu.hlChangePct).toBeCloseTo(30, 0);
    expect(cpu.verdict).toBe("regressed");
    expect(nginx.metrics.find((m) => m.metric === "peakMemory")!.verdict).not.toBe("regressed");
    const md = renderComparisonMarkdown(comparison);
    expect(md).toMatch(
      /\*\*nginx\*\* \(k6\) +\| Proxy CPU\/request \(µs\) +\| +40\.00 \| +52\.00 \| +\+30\.00% \|/,
    );
  });

  it("an A/A of the proxy's cost stays quiet", () => {
    const comparison = compareVariants(variantRun(40));
    const nginx = comparison.cells.find((c) => c.proxy === "nginx")!;
    for (const m of nginx.metrics) expect(["unchanged", "inconclusive"]).toContain(m.verdict);
  });

  it("a run that tests the primary metrics: CPU/request and p99 tested, the others shown with an interval alone", () => {
    const run = variantRun(52);
    run.settings.testedMetrics = ["cpuPerRequest", "p99"];
    const comparison = compareVariants(run);
    const nginx = comparison.cells.find((c) => c.proxy === "nginx")!;
    expect(nginx.metrics.map((m) => m.metric)).toEqual(["p99", "cpuPerRequest"]);
    expect(comparison.tests).toBe(3); // nginx's two and direct's p99
    expect(nginx.metrics.find((m) => m.metric === "cpuPerRequest")!.verdict).toBe("regressed");
    const memory = nginx.shown.find((m) => m.metric === "peakMemory")!;
    expect(memory.why).toMatch(/^not tested \(--test-metrics cpuPerRequest,p99,\.\.\. tests it too\)/);
    expect(memory.ci).toBeDefined();
    expect(memory.hlChangePct).toBeCloseTo(0, 5);
    expect(nginx.shown.map((m) => m.metric)).toEqual(["rps", "mean", "p50", "peakMemory"]);
    const md = renderComparisonMarkdown(comparison);
    expect(md).toMatch(
      /Proxy peak memory \(MiB\) +\| +12\.50 \| +12\.50 \| +\+0\.00% \| .*alone\) \|.*not tested \(--test-metrics\)/,
    );
    // compare may be asked for another set: it tests those
    expect(compareVariants(run, { testedMetrics: ["cpuPerRequest", "peakMemory"] }).tests).toBe(2);
  });

  it.each([
    ["start", false],
    ["process", true],
    ["repetition", true],
  ] as const)(
    "peak memory read since %s: tested when asked %s (a running maximum never is)",
    (peakSince, tested) => {
      const run = variantRun(40);
      run.settings.testedMetrics = ["peakMemory"];
      for (const c of run.cells)
        for (const r of c.repetitions) if (r.proxyCost) r.proxyCost.peakSince = peakSince;
      const nginx = compareVariants(run).cells.find((c) => c.proxy === "nginx")!;
      expect(nginx.metrics.some((m) => m.metric === "peakMemory")).toBe(tested);
      const shown = nginx.shown.find((m) => m.metric === "peakMemory");
      expect(shown?.why.startsWith("a running maximum")).toBe(tested ? undefined : true);
      if (!tested)
        expect(renderComparisonMarkdown(compareVariants(run))).toContain("not tested (a running maximum)");
    },
  );

  it("takes the metrics in unpaired comparisons of two runs too", () => {
    const base = results([costly(cell("nginx", reps(6)), jitter(6, 40))]);
    const head = results([costly(cell("nginx", reps(6)), jitter(6, 52))]);
    const metrics = compareResults(base, head).cells[0]!.metrics;
    const cpu = metrics.find((m) => m.metric === "cpuPerRequest")!;
    expect(cpu.base.median).toBe(40);
    expect(cpu.head.median).toBe(52);
  });
});
