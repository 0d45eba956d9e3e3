import { describe, expect, it } from "vitest";
import { compareVariants } from "../../../src/report/compare.js";
import { cellRunners, mergeResults, shardSet, type Source } from "../../../src/results/merge.js";
import { Results } from "../../../src/results/schema.js";
import { cell, results } from "../../support/report/build.js";

const rounds = (p50: number) =>
  Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: p50 * (1 + i / 50) }));

/** One shard of a variant run: base and head of each proxy, measured on `host`. */
function shard(host: string, proxies: string[], index: number, startedAt: string): Source {
  const r = results(
    proxies.flatMap((p) => [
      cell(p, rounds(5), { variant: "base" }),
      cell(p, rounds(5.5), { variant: "head" }),
    ]),
  );
  r.settings.proxies = ["direct", "nginx", "haproxy"];
  r.settings.repetitions = 10;
  r.settings.variants = [
    { name: "base", dir: `/${host}/base` },
    { name: "head", dir: `/${host}/head` },
  ];
  r.settings.shard = { index, count: 2 };
  r.environment.hostname = host;
  r.runId = `run-${host}`;
  r.startedAt = startedAt;
  r.finishedAt = startedAt.replace("T13", "T14");
  return { results: r, from: `results/${host}` };
}

describe("mergeResults", () => {
  const a = shard("bench-1", ["direct", "nginx"], 1, "2026-11-21T13:00:05.000Z");
  const b = shard("bench-2", ["haproxy"], 2, "2026-11-21T13:00:01.000Z");

  it("puts the shards' cells side by side, each naming the runner that measured it", () => {
    const merged = mergeResults([a, b]);
    expect(merged.cells.map((c) => [c.id, c.runner])).toEqual([
      ["small/default/direct/k6@base", "bench-1"],
      ["small/default/direct/k6@head", "bench-1"],
      ["small/default/nginx/k6@base", "bench-1"],
      ["small/default/nginx/k6@head", "bench-1"],
      ["small/default/haproxy/k6@base", "bench-2"],
      ["small/default/haproxy/k6@head", "bench-2"],
    ]);
    expect(merged.runId).toBe("run-bench-1+run-bench-2");
    expect(merged.startedAt).toBe("2026-11-21T13:00:01.000Z");
    expect(merged.finishedAt).toBe("2026-11-21T14:00:05.000Z");
    expect(merged.settings.shard).toBeUndefined();
    expect(() => Results.parse(merged)).not.toThrow();
    expect(cellRunners(merged)).toEqual(
      new Map([
        ["bench-1", 4],
        ["bench-2", 2],
      ]),
    );
  });

  it("the merged run compares paired like one run: every cell, its pairs from one machine", () => {
    const c = compareVariants(mergeResults([a, b]));
    expect(c.mode).toBe("paired");
    expect(c.cells.map((x) => x.proxy)).toEqual(["direct", "nginx", "haproxy"]);
    expect(c.label).toBe("paired over 10 rounds");
  });

  it("keeps the round order's seed only when every shard drew the same (each shard's own stays in its results.json)", () => {
    const seeded = (s: Source, seed: number): Source => ({
      ...s,
      results: { ...s.results, settings: { ...s.results.settings, roundOrder: "random", seed } },
    });
    expect(mergeResults([seeded(a, 7), seeded(b, 7)]).settings.seed).toBe(7);
    const apart = mergeResults([seeded(a, 7), seeded(b, 8)]);
    expect(apart.settings.roundOrder).toBe("random");
    expect(apart.settings).not.toHaveProperty("seed");
  });

  it("returns a single run as it is", () => {
    expect(mergeResults([a])).toBe(a.results);
  });

  it("refuses a cell measured twice, naming both sources", () => {
    const again = structuredClone(a.results);
    again.settings.shard = { index: 2, count: 2 };
    expect(() => mergeResults([a, { results: again, from: "results/again" }])).toThrow(
      "results/again: cell small/default/direct/k6@base is also in results/bench-1",
    );
  });

  it("refuses one shard twice, shards of splits of different sizes, and a shard beside a whole run", () => {
    expect(() => mergeResults([a, { ...a, from: "results/again" }])).toThrow(
      "results/again: shard 1/2 is also results/bench-1",
    );
    const ofThree = shard("bench-3", ["haproxy"], 2, "2026-11-21T13:00:01.000Z");
    ofThree.results.settings.shard = { index: 2, count: 3 };
    expect(() => mergeResults([a, ofThree])).toThrow(
      "results/bench-3: shard 2/3, beside results/bench-1 of 2: not parts of one run",
    );
    const whole = shard("bench-4", ["haproxy"], 2, "2026-11-21T13:00:01.000Z");
    delete whole.results.settings.shard;
    expect(() => mergeResults([a, whole])).toThrow(
      "results/bench-4: not a shard, beside results/bench-1, a shard: not parts of one run",
    );
  });

  it("refuses runs of different matrices, naming the setting", () => {
    const other = shard("bench-3", ["haproxy"], 2, "2026-11-21T13:00:01.000Z");
    other.results.settings.repetitions = 5;
    expect(() => mergeResults([a, other])).toThrow(
      "results/bench-3: its repetitions (5) differs from results/bench-1's (10): not parts of one run",
    );
  });

  it("refuses nothing to merge", () => {
    expect(() => mergeResults([])).toThrow("no results to merge");
  });
});

describe("shardSet", () => {
  it("names the shards of the split that no run holds (a lost artifact), none when all are there", () => {
    const one = shard("bench-1", ["direct"], 1, "2026-11-21T13:00:05.000Z");
    const two = shard("bench-2", ["haproxy"], 2, "2026-11-21T13:00:01.000Z");
    expect(shardSet([one, two])).toEqual({ count: 2, missing: [] });
    expect(shardSet([two])).toEqual({ count: 2, missing: [1] });
    const three = structuredClone(two);
    three.results.settings.shard = { index: 3, count: 3 };
    one.results.settings.shard = { index: 1, count: 3 };
    expect(shardSet([one, three])).toEqual({ count: 3, missing: [2] });
    delete one.results.settings.shard;
    expect(shardSet([one])).toBeUndefined();
  });
});
