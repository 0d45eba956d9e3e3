import path from "node:path";
import type { ManifestDirs } from "../../manifests/load.js";
import { formatWallTime } from "../../render/format.js";
import type { Out } from "../../runner/measurement.js";
import type { Settings } from "../../results/schema.js";
import { formatCpuLayout } from "../../runner/cpus.js";
import { skippedName, type Plan } from "../../runner/plan.js";
import { checkRunInputs } from "../../runner/preflight.js";
import { coreCount, resolveSettings, withRoundsPlan, type RunRequest } from "../../runner/settings.js";
import { estimateSeconds, shardOfKeys, shardPlan } from "../../runner/shard.js";
import { planRun, planVariantRounds } from "../../runner/variants.js";
import { testedSet } from "../../stats/tested-metrics.js";

/**
 * `proxybench run --dry-run`: the plan (blocks, cells, repetitions) and its estimated wall
 * time, and how long the longest shard would take over 2 to 4 runners, without starting
 * anything: a caller picks its shard count from it. It refuses what the run would refuse before
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
  const cells = shardOfKeys(plan, 1).size;
  const out: Array<[number, number]> = [];
  for (let count = 2; count <= Math.min(upTo, cells); count++) {
    const longest = Math.max(
      ...Array.from({ length: count }, (_, i) =>
        estimateSeconds(
          shardPlan(plan, { index: i + 1, count }),
          settings.repetitions,
          settings.proxyLifetime,
        ),
      ),
    );
    out.push([count, longest]);
  }
  return out;
}

/** The text of a dry run (pure). */
export function renderDryRun(
  plan: Plan,
  settings: Pick<Settings, "repetitions" | "shard" | "proxyLifetime">,
  layout: string,
  study?: { seconds: number },
): string {
  const lines: string[] = [];
  const cells = plan.blocks.reduce((n, b) => n + b.cells.length, 0);
  const shard = settings.shard ? ` (shard ${settings.shard.index}/${settings.shard.count})` : "";
  lines.push(
    `plan${shard}: ${plan.blocks.length} block(s), ${cells} cell(s), ${settings.repetitions} repetition(s) each; cores ${layout}`,
  );
  for (const b of plan.blocks) {
    lines.push(
      `  ${b.key} (${b.engine}, ${b.load.warmupS}s warm-up, ${b.load.durationS}s per repetition): ${b.cells.map((c) => c.id).join(", ")}`,
    );
  }
  for (const s of plan.skipped) {
    lines.push(`  skipped ${skippedName(s)}: ${s.reason}`);
  }
  const seconds = study?.seconds ?? estimateSeconds(plan, settings.repetitions, settings.proxyLifetime);
  lines.push(`estimated wall time: ${formatWallTime(seconds)}`);
  // A study runs on one runner: it has no shards.
  if (settings.shard === undefined && study === undefined) {
    for (const [count, seconds] of shardEstimates(plan, settings)) {
      lines.push(`  over ${count} runners (--shard I/${count}): about ${formatWallTime(seconds)} each`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Plans the run asked for and prints it; starts nothing, writes nothing. */
export async function dryRun(
  req: RunRequest,
  out: Out = process.stdout,
  builtinDirs: Pick<ManifestDirs, "builtinProxiesDir" | "builtinScenariosDir"> = {},
): Promise<void> {
  const resolved = resolveSettings(req, coreCount()).settings;
  const full = await planRun(resolved, builtinDirs);
  const plan = shardPlan(full, resolved.shard);
  // --repetitions auto: the rounds planned as the run would (the estimate takes the last look's)
  const rounds = req.autoRounds
    ? planVariantRounds(
        full,
        resolved.variants ?? [],
        {
          budgetMinutes: req.budgetMinutes,
          targetPct: req.targetPct,
          shards: resolved.shard?.count ?? 1,
          lifetime: resolved.proxyLifetime,
        },
        testedSet(resolved),
      )
    : undefined;
  const settings = rounds ? withRoundsPlan(resolved, rounds) : resolved;
  await checkRunInputs(plan, req.out === undefined ? undefined : path.resolve(req.out));
  out.write(renderDryRun(plan, settings, formatCpuLayout(settings.cpus)));
}
