import { describe, expect, it } from "vitest";
import { compareVariants } from "../../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../../src/report/compare-markdown.js";
import { buildHeader } from "../../../src/report/model.js";
import type { Cell, Results, StealAccounting } from "../../../src/results/schema.js";
import { pairedTwins } from "../../../src/stats/tested-metrics.js";
import { cell, pairedRun } from "../../support/report/build.js";

// Steal in a paired comparison: the rounds whose steal is above the noise limit are left out of
// the tests of the figures that hold stolen time (latency, requests/sec; CPU per request unless
// the kernel takes steal off the task's run time), every other figure compared on every round.

const ROUNDS = 12;

/** A cell of `ROUNDS` repetitions, CPU/request `cpu` (a little jitter), p50 1 ms, steal per round. */
function side(proxy: string, variant: string, cpu: number, steal: (round: number) => number): Cell {
  const c = cell(
    proxy,
    Array.from({ length: ROUNDS }, () => ({ rps: 1000, p50: 1 })),
    { variant },
  );
  c.repetitions = c.repetitions.map((r, i) => {
    const cpuPerRequestUs = cpu * (1 + ((i % 3) - 1) * 0.01);
    const cpuS = (cpuPerRequestUs * 10_000) / 1e6;
    return {
      ...r,
      noise: { otherCpu: 0, steal: steal(i) },
      proxyCost: { source: "proc", cpuS, idleCpuS: 0, windowS: 10, cpuPerRequestUs, peakMemoryMiB: 12 },
    };
  });
  return c;
}

function run(steal: (round: number) => number, accounting?: StealAccounting): Results {
  const cells = [side("nginx", "base", 40, steal), side("nginx", "head", 52, steal)];
  return pairedRun(cells, ["cpuPerRequest", "p99"], accounting ? { stealAccounting: accounting } : {});
}

const metric = (r: Results, name: string) =>
  compareVariants(r).cells[0]!.metrics.find((m) => m.metric === name);

describe("steal in a paired comparison", () => {
  it("below the noise limit: every round tested, nothing to name", () => {
    const r = run(() => 0.05, "excluded");
    const c = compareVariants(r);
    expect(c.cells[0]!.metrics.map((m) => [m.metric, m.n])).toEqual([
      ["p99", ROUNDS],
      ["cpuPerRequest", ROUNDS],
    ]);
    expect(c.notes.filter((n) => n.includes("steal") || n.includes("Steal"))).toEqual([]);
    expect(new Map(buildHeader(r).facts).has("Steal")).toBe(false);
  });

  it("above the limit on some rounds: latency loses them, CPU per request keeps them where the kernel leaves steal out", () => {
    const r = run((i) => (i % 4 === 0 ? 0.3 : 0.01), "excluded");
    const p99 = metric(r, "p99")!;
    expect(p99.n).toBe(ROUNDS - 3);
    expect(p99.stolenRounds).toBe(3);
    expect(p99.why).toContain("3 of 12 rounds left out: steal above 0.05 core (0.30 core)");
    const cpu = metric(r, "cpuPerRequest")!;
    expect(cpu.n).toBe(ROUNDS);
    expect(cpu.stolenRounds).toBeUndefined();
    expect(cpu.verdict).toBe("regressed");
    const c = compareVariants(r);
    expect(c.notes).toContain(
      "Steal: the hypervisor took 0.01 core (0.01-0.30) of the pinned cores (median over 24 repetitions); steal alone does not make a repetition noisy. CPU per request leaves it out (the kernel takes stolen time off the proxy's run time: CONFIG_PARAVIRT_TIME_ACCOUNTING); latency and requests/sec hold it.",
    );
    expect(c.notes).toContain(
      "Rounds with steal above 0.05 core (--noise-limit) were left out of the tests of the figures that hold it: p99 latency (ms) (1 of 2 tested metrics). Compared on every round: Proxy CPU/request (µs).",
    );
    expect(renderComparisonMarkdown(c)).toMatch(
      /p99 latency \(ms\) .*\| +9 \| unchanged \(3 rounds left out: steal\) +\|/,
    );
  });

  it("above the limit on every round (a busy host all along): CPU per request still compared, latency shown, not tested", () => {
    const r = run((i) => 0.13 + (0.41 * i) / (ROUNDS - 1), "excluded");
    const c = compareVariants(r);
    const nginx = c.cells[0]!;
    expect(nginx.metrics.map((m) => m.metric)).toEqual(["cpuPerRequest"]);
    expect(nginx.metrics[0]!.verdict).toBe("regressed");
    expect(c.tests).toBe(1);
    const p99 = nginx.shown.find((m) => m.metric === "p99")!;
    expect(p99.why).toBe(
      "not tested: steal above 0.05 core on every round (0.33 core (0.13-0.54)), and this figure holds the time the hypervisor stole",
    );
    expect(c.counts.regressed).toBe(1);
    expect(c.notes.join("\n")).toContain(
      "(1 of 2 tested metrics; 1 of them had no round left and are shown, not tested). Compared on every round: Proxy CPU/request (µs).",
    );
    expect(renderComparisonMarkdown(c)).toContain("not tested (steal on every round)");
  });

  it.each<[StealAccounting | undefined]>([["included"], ["unknown"], [undefined]])(
    "a kernel that counts steal as the task's (%s): CPU per request loses the rounds too",
    (accounting) => {
      const r = run((i) => (i % 4 === 0 ? 0.3 : 0.01), accounting);
      expect(metric(r, "cpuPerRequest")!.n).toBe(ROUNDS - 3);
      expect(compareVariants(r).notes.join("\n")).toContain("CPU per request ");
    },
  );

  it("the runner's stopping rule pairs the rounds as compare does", () => {
    const r = run((i) => (i % 4 === 0 ? 0.3 : 0.01), "excluded");
    const [base, head] = r.cells as [Cell, Cell];
    const ratios = pairedTwins(base, head, 0, ["cpuPerRequest", "p99"], {
      limit: 0.05,
      accounting: "excluded",
    });
    expect(ratios.map((m) => [m.spec.metric, m.pairs.length])).toEqual([
      ["p99", ROUNDS - 3],
      ["cpuPerRequest", ROUNDS],
    ]);
    // Without a rule (a caller that knows of no steal): every round.
    expect(pairedTwins(base, head, 0, ["p99"]).map((m) => m.pairs.length)).toEqual([ROUNDS]);
  });

  it("the report's header names the steal: median over the repetitions", () => {
    const facts = new Map(buildHeader(run((i) => (i % 2 === 0 ? 0.21 : 0.13), "excluded")).facts);
    expect(facts.get("Steal")).toBe(
      "0.17 core (0.13-0.21) of the pinned cores, median over 24 repetitions (the hypervisor ran something else; not noise by itself): CPU per request leaves it out (the kernel takes stolen time off the proxy's run time: CONFIG_PARAVIRT_TIME_ACCOUNTING); latency holds it",
    );
    expect(new Map(buildHeader(run(() => 0.04)).facts).has("Steal")).toBe(false);
  });
});
