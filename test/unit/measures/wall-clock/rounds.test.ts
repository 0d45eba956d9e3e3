import { describe, expect, it } from "vitest";
import { decideAtLook } from "../../../../src/measures/wall-clock/block.js";
import type { Plan } from "../../../../src/runner/plan.js";
import { mulberry32, roundOrder } from "../../../../src/runner/rounds.js";
import { resolveResumeSettings, resolveSettings, withRoundsPlan } from "../../../../src/runner/settings.js";
import { familyTests, planVariantRounds, roundSeconds } from "../../../../src/runner/variants.js";
import type { Cell, Settings } from "../../../../src/results/schema.js";
import { planLooks } from "../../../../src/stats/sequential.js";
import { ALL_METRICS } from "../../../../src/stats/tested-metrics.js";
import { wilcoxonSignedRank } from "../../../../src/stats/wilcoxon.js";
import { cell } from "../../../support/report/build.js";

const text = (slots: Array<{ cell: string; round: number }>) =>
  slots.map((s) => `${s.cell}${s.round + 1}`).join(" ");

describe("roundOrder", () => {
  it.each([
    [["A", "B"], 4, "A1 B1 B2 A2 A3 B3 B4 A4"],
    [["A", "B", "C"], 2, "A1 B1 C1 C2 B2 A2"],
    [["A"], 3, "A1 A2 A3"],
    [["A", "B"], 0, ""],
  ])("abba: %j x %i", (cells, rounds, order) => {
    expect(text(roundOrder(cells, rounds, "abba"))).toBe(order);
  });

  it("abba cancels a linear drift: over two rounds every cell's mean position is the same", () => {
    const cells = ["A", "B", "C", "D"];
    const slots = roundOrder(cells, 2, "abba");
    const mean = (c: string) =>
      slots
        .map((s, i) => (s.cell === c ? i : -1))
        .filter((i) => i >= 0)
        .reduce((a, b) => a + b, 0) / 2;
    expect(new Set(cells.map(mean)).size).toBe(1);
  });

  it("random: every cell once per round, the same order for the same seed, another for another", () => {
    const cells = ["A", "B", "C", "D", "E"];
    const one = roundOrder(cells, 6, "random", 42);
    for (let r = 0; r < 6; r++) {
      expect(
        one
          .filter((s) => s.round === r)
          .map((s) => s.cell)
          .sort(),
      ).toEqual(cells);
    }
    expect(text(roundOrder(cells, 6, "random", 42))).toBe(text(one));
    expect(text(roundOrder(cells, 6, "random", 43))).not.toBe(text(one));
  });
});

describe("--repetitions auto: the rounds planned before a variant run", () => {
  const fixedRate = {
    label: "default",
    model: "constant-arrival-rate" as const,
    rate: 1000,
    vus: 32,
    durationS: 1,
    warmupS: 2,
  };
  const closed = { label: "vus-32", model: "constant-vus" as const, vus: 32, durationS: 1, warmupS: 2 };
  /** A plan of these proxies x scenarios for each variant (what planVariantRounds reads of one). */
  function plan(
    proxies: string[],
    scenarios: string[],
    variants: string[],
    load: typeof fixedRate | typeof closed = fixedRate,
  ): Plan {
    return {
      blocks: scenarios.map((scenario) => ({
        key: `${scenario}-default`,
        load,
        engine: "k6",
        cells: variants.flatMap((variant) =>
          proxies.map((proxy) => ({
            id: `${scenario}/default/${proxy}/k6@${variant}`,
            variant,
            engine: "k6",
            load,
            proxy: { manifest: { name: proxy, ...(proxy === "direct" ? { kind: "direct" } : {}) } },
            scenario: { manifest: { name: scenario } },
          })),
        ),
      })),
      skipped: [],
      notes: [],
    } as unknown as Plan;
  }
  const variants = [
    { name: "base", dir: "/b" },
    { name: "head", dir: "/h" },
  ];
  const eight = plan(
    ["direct", "nginx", "haproxy", "caddy"],
    ["passthrough", "json-lookup"],
    ["base", "head"],
  );

  it("the family: every base cell with a head twin, times the metrics compare tests under its load", () => {
    // a fixed arrival rate: mean, p50, p99, CPU per request, peak memory (req/s is fixed by the load)
    expect(familyTests(eight, variants, ALL_METRICS)).toBe(8 * 5);
    expect(
      familyTests(plan(["nginx"], ["passthrough"], ["base", "head"], closed), variants, ALL_METRICS),
    ).toBe(6);
    // a cell only in head is not compared
    const lopsided = plan(["nginx"], ["passthrough"], ["base", "head"]);
    lopsided.blocks[0]!.cells.push({
      ...lopsided.blocks[0]!.cells[1]!,
      id: "x",
      proxy: { manifest: { name: "caddy" } },
    } as never);
    expect(familyTests(lopsided, variants, ALL_METRICS)).toBe(5);
  });

  it("by default the family is the primary metrics: CPU per request and p99, 2 per cell", () => {
    // 16 tests: 2/2^9 = 0.0039 > 0.05/16; 2/2^10 = 0.00195 <= 0.0031
    expect(planVariantRounds(eight, variants)).toEqual({
      alpha: 0.05,
      tests: 16,
      looks: [{ rounds: 10, alpha: 0.05 }],
      targetPct: 10,
    });
  });

  it("without a budget: one look at the fewest rounds that give an interval for the family", () => {
    const rounds = planVariantRounds(eight, variants, {}, ALL_METRICS);
    // 40 tests: 2/2^10 = 0.00195 > 0.05/40; 2/2^11 = 0.00098 <= 0.00125
    expect(rounds).toEqual({ alpha: 0.05, tests: 40, looks: [{ rounds: 11, alpha: 0.05 }], targetPct: 10 });
  });

  it("with a budget: as many rounds as the estimate fits, looks planned up to them", () => {
    const { perRound, fixed } = roundSeconds(eight);
    expect(perRound).toBe(16 * 2.5);
    expect(fixed).toBe(16 * 5);
    // each round starts the 12 proxies (not direct) anew: their 2 s warm-ups are in every round
    expect(roundSeconds(eight, "round")).toEqual({ perRound: 16 * 2.5 + 12 * 2, fixed: 16 * 5 });
    // 20 minutes: (1200 - 80) / 40 = 28 rounds
    const rounds = planVariantRounds(eight, variants, { budgetMinutes: 20 }, ALL_METRICS);
    expect(rounds.looks.map((l) => l.rounds)).toEqual([14, 21, 28]);
    expect(rounds.budgetMinutes).toBe(20);
    expect(rounds).toMatchObject(planLooks({ alpha: 0.05, tests: 40, maxRounds: 28 }));
    // the budget pays for this machine's shard, the family is the whole matrix's
    // over 2 shards each machine pays half the matrix's time: every shard plans the same looks
    expect(planVariantRounds(eight, variants, { budgetMinutes: 20, shards: 2 }, ALL_METRICS).tests).toBe(40);
    expect(
      planVariantRounds(eight, variants, { budgetMinutes: 20, shards: 2 }, ALL_METRICS).looks.at(-1)?.rounds,
    ).toBe(Math.floor((1200 - 40) / 20));
  });

  it("refuses a run where no cell is in both variants", () => {
    expect(() => planVariantRounds(plan(["nginx"], ["p"], ["base"]), variants)).toThrow(
      /--repetitions auto: no cell runs in both compared variants/,
    );
  });

  it("auto goes with --variant, --budget with auto, and a resumed run keeps its plan", () => {
    expect(() => resolveSettings({ autoRounds: true }, 2)).toThrow("--repetitions auto goes with --variant");
    expect(() => resolveSettings({ budgetMinutes: 5, variants }, 2)).toThrow(
      "--budget goes with --repetitions auto",
    );
    const settings = resolveSettings({ autoRounds: true, variants }, 2).settings;
    const planned = withRoundsPlan(settings, planLooks({ alpha: 0.05, tests: 40, maxRounds: 28 }));
    expect(planned.repetitions).toBe(28);
    expect(planned.sequential?.looks).toHaveLength(3);
    expect(resolveResumeSettings(planned, { autoRounds: true }, 2).settings.sequential).toEqual(
      planned.sequential,
    );
    const fixed: Settings = { ...settings, repetitions: 10 };
    expect(() => resolveResumeSettings(fixed, { autoRounds: true }, 2)).toThrow(
      /--resume: this run has fixed repetitions/,
    );
  });
});

describe("decideAtLook: the runner's stopping rule on a block's cells", () => {
  const rounds = {
    plan: planLooks({ alpha: 0.05, tests: 4, maxRounds: 20 }),
    variants: ["base", "head"] as [string, string],
  };
  const first = rounds.plan.looks[0]!.rounds;
  const twin = (factor: (i: number) => number, n: number): Cell[] => {
    const drift = (i: number) => 1 + 0.1 * Math.sin(i);
    return [
      cell(
        "nginx",
        Array.from({ length: n }, (_, i) => ({ rps: 1000, p50: 5 * drift(i) })),
        { variant: "base" },
      ),
      cell(
        "nginx",
        Array.from({ length: n }, (_, i) => ({ rps: 1000, p50: 5 * drift(i) * factor(i) })),
        { variant: "head" },
      ),
    ];
  };

  it("only at a planned look", () => {
    expect(
      decideAtLook(
        twin(() => 1.3, first - 1),
        rounds,
        first - 1,
        new Set(),
      ),
    ).toBeUndefined();
  });

  it("stops when every compared metric is decided (+30% on latency, req/s unchanged)", () => {
    const decided = new Set<string>();
    expect(
      decideAtLook(
        twin(() => 1.3, first),
        rounds,
        first,
        decided,
      ),
    ).toEqual({ index: 0, metrics: 4, decided: 4, precise: 0, stop: true });
    expect([...decided].sort()).toEqual([
      "small/default/nginx/k6 mean",
      "small/default/nginx/k6 p50",
      "small/default/nginx/k6 p99",
      "small/default/nginx/k6 rps",
    ]);
  });

  it("goes on while a metric is undecided, and what was decided stays decided", () => {
    const noisy = (i: number) => (i % 2 ? 1.15 : 0.88) * (1 + i * 0.002);
    const decided = new Set<string>();
    const look = decideAtLook(twin(noisy, first), rounds, first, decided);
    expect(look?.stop).toBe(false);
    // req/s is the same on both sides: unchanged, decided
    expect([...decided]).toEqual(["small/default/nginx/k6 rps"]);
    decided.add("small/default/nginx/k6 p50");
    decided.add("small/default/nginx/k6 mean");
    decided.add("small/default/nginx/k6 p99");
    const second = rounds.plan.looks[1]!.rounds;
    expect(decideAtLook(twin(noisy, second), rounds, second, decided)?.stop).toBe(true);
  });

  it("a metric with a zero value has no ratio: it counts as decided and holds nothing", () => {
    const noisy = (i: number) => (i % 2 ? 1.15 : 0.88) * (1 + i * 0.002);
    const [base, head] = twin(noisy, first);
    const zeroed = {
      ...base!,
      repetitions: base!.repetitions.map((r) => ({ ...r, latencyMs: { ...r.latencyMs, p50: 0 } })),
    };
    const decided = new Set<string>();
    // p50 counts as decided (more rounds cannot give it a ratio); mean and p99 still hold the block
    expect(decideAtLook([zeroed, head!], rounds, first, decided)).toMatchObject({
      metrics: 4,
      decided: 2,
      stop: false,
    });
    expect([...decided].sort()).toEqual(["small/default/nginx/k6 p50", "small/default/nginx/k6 rps"]);
    decided.add("small/default/nginx/k6 mean");
    decided.add("small/default/nginx/k6 p99");
    expect(decideAtLook([zeroed, head!], rounds, first, decided)?.stop).toBe(true);
  });

  it("a base cell without its head twin is not compared", () => {
    const [base] = twin(() => 1.3, first);
    expect(decideAtLook([base!], rounds, first, new Set())).toEqual({
      index: 0,
      metrics: 0,
      decided: 0,
      precise: 0,
      stop: true,
    });
  });
});

describe("the default round order: random, so the rounds' signs are exchangeable", () => {
  it("a new run draws a seed and records it; --round-order abba draws none", () => {
    const drawn = resolveSettings({}, 2).settings;
    expect(drawn.roundOrder).toBe("random");
    expect(Number.isInteger(drawn.seed)).toBe(true);
    expect(resolveSettings({ seed: 7 }, 2).settings.seed).toBe(7);
    const abba = resolveSettings({ roundOrder: "abba" }, 2).settings;
    expect(abba.roundOrder).toBe("abba");
    expect(abba.seed).toBeUndefined();
    expect(() => resolveSettings({ roundOrder: "abba", seed: 3 }, 2)).toThrow("--seed goes with");
  });

  /**
   * Two identical cells on a machine with a periodic disturbance (a timer, another tenant's job)
   * whose period is two rounds and whose phase each run meets by chance. abba gives each cell the
   * same slots of every period (A B B A: A first and last), so the disturbance reads as a
   * difference between them, of one sign for the whole run; random order makes each round's sign
   * a coin flip, the signed-rank test's own assumption, and the test keeps its level.
   */
  function aaRejections(order: "abba" | "random", trials: number): number {
    const noise = mulberry32(11);
    const normal = () => Math.sqrt(-2 * Math.log(1 - noise())) * Math.cos(2 * Math.PI * noise());
    let rejected = 0;
    for (let t = 0; t < trials; t++) {
      const phase = 2 * Math.PI * noise();
      const value = new Map<string, number>();
      for (const [i, s] of roundOrder(["A", "B"], 11, order, t + 1).entries())
        value.set(`${s.cell}${s.round}`, 0.5 * Math.cos((Math.PI * i) / 2 + phase) + normal());
      const d = Array.from({ length: 11 }, (_, r) => value.get(`B${r}`)! - value.get(`A${r}`)!);
      if (wilcoxonSignedRank(d).p <= 0.05) rejected++;
    }
    return rejected / trials;
  }

  it("an A/A under a periodic disturbance: abba rejects too often, random keeps the test's level", () => {
    expect(aaRejections("abba", 2000)).toBeGreaterThan(0.1);
    expect(aaRejections("random", 2000)).toBeLessThanOrEqual(0.055);
  });
});
