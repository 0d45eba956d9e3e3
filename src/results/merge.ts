import { existsSync, type Stats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { readResults, RESULTS_FILE } from "./io.js";
import type { Results, Settings } from "./schema.js";

/**
 * Several runs of one matrix (the shards of `proxybench run --shard I/N`, each on its own
 * machine) as one Results: their cells side by side, each naming the runner (host name) that
 * measured it. The runs must agree on what was measured; a cell may be in one run only. Pure.
 */

export interface Source {
  results: Results;
  /** Where it was read from, for the errors. */
  from: string;
}

/** The settings shards of one run share (the shard itself and the folders aside). */
function sharedSettings(s: Settings): Record<string, unknown> {
  return {
    proxies: s.proxies,
    scenarios: s.scenarios,
    repetitions: s.repetitions,
    engine: s.engine,
    durationS: s.durationS,
    warmupS: s.warmupS,
    runtime: s.runtime,
    loads: s.loads,
    variants: s.variants?.map((v) => v.name),
    roundOrder: s.roundOrder,
    proxyLifetime: s.proxyLifetime,
    testedMetrics: s.testedMetrics,
  };
}

function checkSameMatrix(first: Source, other: Source): void {
  const a = sharedSettings(first.results.settings);
  const b = sharedSettings(other.results.settings);
  for (const key of Object.keys(a)) {
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) {
      throw new UserError(
        `${other.from}: its ${key} (${JSON.stringify(b[key]) ?? "none"}) differs from ${first.from}'s (${JSON.stringify(a[key]) ?? "none"}): not parts of one run`,
      );
    }
  }
}

/** The shards of a split run that the sources hold, and how many the split has. */
export type ShardSet = NonNullable<ReturnType<typeof shardSet>>;

/**
 * Which shards of a split run (`--shard INDEX/COUNT`) the sources hold; undefined when none is a
 * shard. A shard given twice, shards of splits of different sizes, or a shard beside a run that
 * is not one are refused, naming the paths: they are not parts of one run.
 */
export function shardSet(sources: readonly Source[]) {
  const sharded = sources.filter((s) => s.results.settings.shard !== undefined);
  const [first] = sharded;
  if (first === undefined) return undefined;
  const whole = sources.find((s) => s.results.settings.shard === undefined);
  if (whole !== undefined)
    throw new UserError(`${whole.from}: not a shard, beside ${first.from}, a shard: not parts of one run`);
  const count = first.results.settings.shard!.count;
  const seen = new Map<number, string>();
  for (const { results, from } of sharded) {
    const { index, count: n } = results.settings.shard!;
    if (n !== count)
      throw new UserError(`${from}: shard ${index}/${n}, beside ${first.from} of ${count}: not parts of one run`);
    if (index > count) throw new UserError(`${from}: shard ${index}/${count}: no such shard`);
    const other = seen.get(index);
    if (other !== undefined) throw new UserError(`${from}: shard ${index}/${count} is also ${other}`);
    seen.set(index, from);
  }
  // The indexes (1..count) no source holds.
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  return { count, missing };
}

/** One Results from one or more runs; a single run comes back as it is. */
export function mergeResults(sources: readonly Source[]): Results {
  const [first, ...rest] = sources;
  if (first === undefined) throw new UserError("no results to merge");
  if (rest.length === 0) return first.results;
  shardSet(sources);
  const seen = new Map<string, string>();
  const cells: Results["cells"] = [];
  for (const source of sources) {
    if (source !== first) checkSameMatrix(first, source);
    const runner = source.results.environment.hostname;
    for (const cell of source.results.cells) {
      const other = seen.get(cell.id);
      if (other !== undefined) throw new UserError(`${source.from}: cell ${cell.id} is also in ${other}`);
      seen.set(cell.id, source.from);
      const named = cell.runner ?? runner;
      cells.push(named === undefined ? cell : { ...cell, runner: named });
    }
  }
  const all = sources.map((s) => s.results);
  const finished = all.map((r) => r.finishedAt);
  const { shard: _shard, seed, ...settings } = first.results.settings;
  // each shard drew its own round order: one seed repeats the merged run's only if all share it
  const oneSeed = seed !== undefined && all.every((r) => r.settings.seed === seed);
  const skipped = new Map(all.flatMap((r) => r.skipped).map((s) => [`${s.proxy}\n${s.reason}`, s]));
  const { finishedAt: _finished, ...base } = first.results;
  return {
    ...base,
    runId: all.map((r) => r.runId).join("+"),
    startedAt: all.map((r) => r.startedAt).sort()[0]!,
    ...(finished.every((f) => f !== undefined) ? { finishedAt: [...finished].sort().at(-1)! } : {}),
    settings: oneSeed ? { ...settings, seed } : settings,
    skipped: [...skipped.values()],
    cells,
  };
}

/** Reads every results directory (or results.json), each named by its path. */
export async function readSources(paths: readonly string[]): Promise<Source[]> {
  const sources: Source[] = [];
  for (const from of paths) sources.push({ results: await readResults(from), from });
  return sources;
}

/** Reads every results directory (or results.json) and merges them. */
export async function readMergedResults(paths: readonly string[]): Promise<Results> {
  return mergeResults(await readSources(paths));
}

/** The runners that measured the cells, with how many cells each (merged results only). */
export function cellRunners(results: Results): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of results.cells) if (c.runner !== undefined) out.set(c.runner, (out.get(c.runner) ?? 0) + 1);
  return out;
}

/**
 * The runs a given path names, each a folder (or file) with what `kindOf` says it holds: the path
 * itself when it holds a run (`given`, its stat, is set for it), else the folders right inside it
 * that do (an artifact download of several runs), sorted. Errors name the path; `runFiles`, what
 * a run's folder holds (undefined: a folder holding none has no runs, and is no error).
 */
export async function runsIn<K>(
  p: string,
  runFiles: string | undefined,
  kindOf: (dir: string, given?: Stats) => K | undefined | Promise<K | undefined>,
): Promise<Array<[string, K]>> {
  const info = await stat(p).catch(() => undefined);
  if (info === undefined) throw new UserError(`${p}: no such results directory or file`);
  const own = await kindOf(p, info);
  if (own !== undefined) return [[p, own]];
  const inside = (await readdir(p, { withFileTypes: true })).filter((e) => e.isDirectory());
  const runs: Array<[string, K]> = [];
  for (const dir of inside.map((e) => path.join(p, e.name)).sort()) {
    const kind = await kindOf(dir);
    if (kind !== undefined) runs.push([dir, kind]);
  }
  if (runs.length === 0 && runFiles !== undefined) throw new UserError(`${p}: holds no ${runFiles}, nor folders that do`);
  return runs;
}

/** Whether a path (`given`: its stat) is a results file or a folder holding results.json; else undefined. */
export const holdsResults = (dir: string, given?: Stats) =>
  given?.isDirectory() === false || existsSync(path.join(dir, RESULTS_FILE)) || undefined;

/** The results the paths name: a file, a folder holding results.json, or a folder of such folders. */
export async function expandResultPaths(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) out.push(...(await runsIn(p, RESULTS_FILE, holdsResults)).map(([dir]) => dir));
  return out;
}
