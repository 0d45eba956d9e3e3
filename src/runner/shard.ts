import type { Settings } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { plannedSeconds, type Plan, type PlannedCell } from "./plan.js";
import { planRun } from "./variants.js";

/**
 * Shards (`--shard I/N`): the matrix split by cell over N runs, on N machines. Every variant of
 * a cell falls in the same shard, so base and head stay paired on one machine. The split is
 * deterministic: the distinct cell keys sorted, the k-th to shard (k mod N) + 1. Pure.
 */

export type Shard = NonNullable<Settings["shard"]>;

/** "2/3" -> { index: 2, count: 3 }; the error names the flag. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UserError(`--shard: expected INDEX/COUNT with 1 <= INDEX <= COUNT (e.g. 1/3), got '${text}'`);
  }
  return { index, count };
}

/** The id of a planned cell without its variant: what the variants of one cell share. */
export function plannedKey(cell: Pick<PlannedCell, "id" | "variant">): string {
  return cell.variant === undefined ? cell.id : cell.id.slice(0, -(cell.variant.length + 1));
}

/** The shard (1-based) of every cell key of the plan. */
export function shardOfKeys(plan: Plan, count: number): Map<string, number> {
  const keys = [...new Set(plan.blocks.flatMap((b) => b.cells.map(plannedKey)))].sort();
  return new Map(keys.map((key, k) => [key, (k % count) + 1]));
}

/** The plan's cells in `shard`, blocks left empty dropped; the whole plan without a shard. */
export function shardPlan(plan: Plan, shard: Shard | undefined): Plan {
  if (shard === undefined) return plan;
  const of = shardOfKeys(plan, shard.count);
  const blocks = plan.blocks
    .map((b) => ({ ...b, cells: b.cells.filter((c) => of.get(plannedKey(c)) === shard.index) }))
    .filter((b) => b.cells.length > 0);
  if (blocks.length === 0) {
    throw new UserError(
      `--shard ${shard.index}/${shard.count}: no cell falls in this shard (the matrix has ${of.size} cell${of.size === 1 ? "" : "s"}): use at most ${of.size} shards`,
    );
  }
  return { ...plan, blocks };
}

/** Seconds per block for starting the upstream and the proxies and probing them (a rough figure). */
const BLOCK_OVERHEAD_S = 10;

/** Estimated wall time of a plan: every warm-up and repetition, plus each block's start-up. */
export function estimateSeconds(
  plan: Plan,
  repetitions: number,
  lifetime?: Settings["proxyLifetime"],
): number {
  return plan.blocks.reduce(
    (sum, b) => sum + plannedSeconds(b, repetitions, b.cells.length, lifetime) + BLOCK_OVERHEAD_S,
    0,
  );
}

/** What bench.yml's plan job is given: its inputs as the benchmark jobs would pass them on. */
export interface SplitRequest {
  runners: number;
  study?: string;
  engine?: string;
  scenariosDirs?: readonly string[];
}

/**
 * Why every benchmark job would refuse these inputs (pure), one reason a line, naming the
 * workflow's inputs; undefined when none would. The plan job asks before any runner is taken.
 */
export function splitRefusal(req: SplitRequest): string | undefined {
  if (req.study === undefined) return undefined;
  const reasons: string[] = [];
  const study = `with study ${req.study}`;
  if (req.runners > 1) {
    reasons.push(
      `runners ${req.runners} ${study}: a study runs on one runner (its proxies are compared side by side; proxybench study takes no --shard): use runners 1`,
    );
  }
  if (req.engine !== undefined) {
    reasons.push(`engine ${req.engine} ${study}: the study names its engine: leave engine empty`);
  }
  if (req.scenariosDirs !== undefined && req.scenariosDirs.length > 0) {
    reasons.push(
      `scenarios-dir ${req.scenariosDirs.join(", ")} ${study}: the study names its scenarios: leave scenarios-dir empty`,
    );
  }
  return reasons.length > 0 ? reasons.join("\n") : undefined;
}

/**
 * The number of cells of the run `settings` describe, refused when `runners` is more: the last
 * shards would get no cell and fail on their runner. `runners` when it fits.
 */
export async function checkSplit(settings: Settings, runners: number): Promise<number> {
  const keys = [...shardOfKeys(await planRun(settings), 1).keys()];
  if (runners > keys.length) {
    throw new UserError(
      `runners ${runners} but the matrix has ${keys.length} cell${keys.length === 1 ? "" : "s"} (${keys.join(", ")}): use at most ${keys.length} runner${keys.length === 1 ? "" : "s"}`,
    );
  }
  return runners;
}
