import { formatWallTime } from "../../render/format.js";
import type { Settings } from "../../results/schema.js";
import { skippedName, type Plan } from "../../runner/plan.js";
import { estimateSeconds, shardOfKeys, shardPlan } from "../../runner/shard.js";

/**
 * `proxybench run --dry-run`'s text: the plan (blocks, cells, repetitions) and its estimated wall
 * time, and how long the longest shard would take over 2 to 4 runners: a caller picks its shard
 * count from it. The run's kind plans it (run.ts), refusing what the run would refuse before
 * starting (an --out that holds results, nothing to run, a k6 script that cannot load). A
 * study's dry run (measures/study/dry-run.ts) and a max-rate search's (measures/max-rate/run.ts) are
 * theirs, from these parts.
 */

/** The longest shard's estimate for each shard count from 2 up to `upTo` (and the cell count). */
export function shardEstimates(
  plan: Plan,
  settings: Pick<Settings, "repetitions" | "proxyLifetime">,
  upTo = 4,
): Array<[number, number]> {
  const counts = Array.from({ length: Math.min(upTo, shardOfKeys(plan, 1).size) - 1 }, (_, i) => i + 2);
  return counts.map((count) => {
    const shards = Array.from({ length: count }, (_, i) => shardPlan(plan, { index: i + 1, count }));
    return [
      count,
      Math.max(...shards.map((s) => estimateSeconds(s, settings.repetitions, settings.proxyLifetime))),
    ];
  });
}

/** The text of a dry run (pure). */
export function renderDryRun(
  plan: Plan,
  settings: Pick<Settings, "repetitions" | "shard" | "proxyLifetime">,
  layout: string,
  study?: { seconds: number },
): string {
  const cells = plan.blocks.reduce((n, b) => n + b.cells.length, 0);
  const shard = settings.shard ? ` (shard ${settings.shard.index}/${settings.shard.count})` : "";
  const seconds = study?.seconds ?? estimateSeconds(plan, settings.repetitions, settings.proxyLifetime);
  // A study runs on one runner: it has no shards.
  const shards = settings.shard === undefined && study === undefined ? shardEstimates(plan, settings) : [];
  const lines = [
    `plan${shard}: ${plan.blocks.length} block(s), ${cells} cell(s), ${settings.repetitions} repetition(s) each; cores ${layout}`,
    ...plan.blocks.map(
      (b) =>
        `  ${b.key} (${b.engine}, ${b.load.warmupS}s warm-up, ${b.load.durationS}s per repetition): ${b.cells.map((c) => c.id).join(", ")}`,
    ),
    ...plan.skipped.map((s) => `  skipped ${skippedName(s)}: ${s.reason}`),
    `estimated wall time: ${formatWallTime(seconds)}`,
    ...shards.map(([n, s]) => `  over ${n} runners (--shard I/${n}): about ${formatWallTime(s)} each`),
  ];
  return `${lines.join("\n")}\n`;
}
