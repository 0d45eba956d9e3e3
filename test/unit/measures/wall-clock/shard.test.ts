import { describe, expect, it } from "vitest";
import { renderDryRun, shardEstimates } from "../../../../src/measures/wall-clock/dry-run.js";
import { checkResumeFlags, type Plan } from "../../../../src/runner/plan.js";
import { resolveSettings } from "../../../../src/runner/settings.js";
import {
  checkSplit,
  estimateSeconds,
  parseShard,
  plannedKey,
  shardPlan,
  splitRefusal,
} from "../../../../src/runner/shard.js";
import { planRun } from "../../../../src/runner/variants.js";

async function plan(proxies: string[], scenarios: string[]): Promise<Plan> {
  const { settings } = resolveSettings({ proxies, scenarios, durationS: 10, warmupS: 2, repetitions: 3 }, 4);
  return planRun(settings);
}

/** A variant plan made from a plain one: every cell twice, @base and @head (the same manifests). */
function asVariants(p: Plan): Plan {
  return {
    ...p,
    blocks: p.blocks.map((b) => ({
      ...b,
      cells: b.cells.flatMap((c) => [
        { ...c, id: `${c.id}@base`, variant: "base" },
        { ...c, id: `${c.id}@head`, variant: "head" },
      ]),
    })),
  };
}

const ids = (p: Plan) => p.blocks.flatMap((b) => b.cells.map((c) => c.id));

describe("parseShard", () => {
  it("reads INDEX/COUNT", () => {
    expect(parseShard("2/3")).toEqual({ index: 2, count: 3 });
  });
  it.each(["0/3", "4/3", "1", "a/b", "1/0"])("refuses %s, naming the flag", (text) => {
    expect(() => parseShard(text)).toThrow(
      `--shard: expected INDEX/COUNT with 1 <= INDEX <= COUNT (e.g. 1/3), got '${text}'`,
    );
  });
});

describe("shardPlan", () => {
  it("splits the cells over the shards, each exactly once, the same way every time", async () => {
    const whole = await plan(["direct", "nginx", "haproxy"], ["passthrough", "json-lookup"]);
    const parts = [1, 2, 3].map((index) => ids(shardPlan(whole, { index, count: 3 })));
    expect(parts.flat().sort()).toEqual(ids(whole).sort());
    expect(parts.map((p) => p.length)).toEqual([2, 2, 2]);
    expect(ids(shardPlan(whole, { index: 2, count: 3 }))).toEqual(parts[1]);
    expect(shardPlan(whole, undefined)).toBe(whole);
  });

  it("keeps every variant of a cell in the same shard (pairs never cross machines)", async () => {
    const whole = asVariants(await plan(["direct", "nginx", "haproxy"], ["passthrough"]));
    for (const index of [1, 2]) {
      const cells = shardPlan(whole, { index, count: 2 }).blocks.flatMap((b) => b.cells);
      const byKey = new Map<string, string[]>();
      for (const c of cells) byKey.set(plannedKey(c), [...(byKey.get(plannedKey(c)) ?? []), c.variant!]);
      for (const variants of byKey.values()) expect(variants.sort()).toEqual(["base", "head"]);
    }
  });

  it("says so when a shard gets no cell", async () => {
    const whole = await plan(["direct", "nginx"], ["passthrough"]);
    expect(() => shardPlan(whole, { index: 3, count: 3 })).toThrow(
      "--shard 3/3: no cell falls in this shard (the matrix has 2 cells): use at most 2 shards",
    );
  });
});

describe("a shard in the settings", () => {
  it("is recorded, and --resume refuses another one, naming the flag", () => {
    const { settings } = resolveSettings({ shard: { index: 2, count: 3 } }, 4);
    expect(settings.shard).toEqual({ index: 2, count: 3 });
    expect(() => checkResumeFlags(settings, { shard: { index: 1, count: 3 } })).toThrow(
      "--shard 1/3 differs from the recorded 2/3",
    );
  });
});

describe("dry run", () => {
  it("estimates the wall time from warm-ups, repetitions and each block's start", async () => {
    const whole = await plan(["direct", "nginx"], ["passthrough", "json-lookup"]);
    // 2 blocks x 2 cells x (2 s warm-up + 3 x 10 s) + 2 x 10 s start-up.
    expect(estimateSeconds(whole, 3)).toBe(2 * 2 * 32 + 20);
    expect(shardEstimates(whole, { repetitions: 3 })).toEqual([
      [2, 2 * 32 + 20],
      [3, 2 * 32 + 20],
      [4, 32 + 10],
    ]);
    // A proxy started anew each round warms up each round, after the block's warm-up:
    // 2 x 2 x (4 x 2 s + 3 x 10 s) + 20 s.
    expect(estimateSeconds(whole, 3, "round")).toBe(2 * 2 * 38 + 20);
    expect(shardEstimates(whole, { repetitions: 3, proxyLifetime: "round" })[0]).toEqual([2, 2 * 38 + 20]);
    const text = renderDryRun(whole, { repetitions: 3 }, "loadgen=0,proxy=1,upstream=2");
    expect(text).toContain("plan: 2 block(s), 4 cell(s), 3 repetition(s) each");
    expect(text).toContain("estimated wall time: 2m28s");
    expect(text).toContain("over 4 runners (--shard I/4): about 42s each");
  });
});

describe("what the plan job refuses before any runner is taken", () => {
  it("a study with more than one runner, an engine or a scenarios folder: each with the reason", () => {
    expect(splitRefusal({ runners: 1 })).toBeUndefined();
    expect(splitRefusal({ runners: 1, study: "llrp" })).toBeUndefined();
    expect(splitRefusal({ runners: 3, study: "llrp" })).toMatch(
      /^runners 3 with study llrp: a study runs on one runner/,
    );
    expect(splitRefusal({ runners: 1, study: "llrp", engine: "wrk" })).toMatch(
      /^engine wrk with study llrp: the study names its engine/,
    );
    expect(splitRefusal({ runners: 1, study: "llrp", scenariosDirs: ["bench/scenarios"] })).toMatch(
      /^scenarios-dir bench\/scenarios with study llrp: the study names its scenarios/,
    );
    // Every reason at once, so one fix of the caller is enough.
    expect(
      splitRefusal({ runners: 2, study: "ocelot", engine: "k6", scenariosDirs: ["s"] })?.split("\n"),
    ).toHaveLength(3);
  });

  it("more runners than cells: the count it can use", async () => {
    const { settings } = resolveSettings({ proxies: ["direct", "nginx"], scenarios: ["passthrough"] }, 4);
    await expect(checkSplit(settings, 2)).resolves.toBe(2);
    await expect(checkSplit(settings, 3)).rejects.toThrow(
      /^runners 3 but the matrix has 2 cells \(passthrough\/.*direct.*nginx.*\): use at most 2 runners$/,
    );
  });
});
