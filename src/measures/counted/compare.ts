import { readFile } from "node:fs/promises";
import path from "node:path";
import { median } from "simple-statistics";
import { readResultsFile, resultsFilePath } from "../../results/io.js";
import { pickVariants } from "../../results/variants.js";
import {
  countedCellId,
  INSTRUCTIONS_FILE,
  InstructionsResults,
  okValues,
  type CountedCell,
} from "./schema.js";
import { whereItWent, type WhereItWent } from "./where.js";

/**
 * Head against base for counted runs: per cell, instructions and estimated cycles per request.
 *
 * The verdict for counted metrics (instructions or estimated cycles per request, from
 * callgrind). Counting is nearly deterministic, so no significance test: a change counts when it
 * is larger than both a floor and several times the spread of the repetitions.
 *
 *   change = (median(head) - median(base)) / median(base)
 *   spread = the larger of the two sides' (max - min) / median
 *   more-work / less-work: |change| > floor AND |change| > factor x spread
 *   unchanged:             |change| <= floor AND factor x spread <= floor
 *   inconclusive:          anything else (repetitions too far apart to tell), with why
 */

export const DEFAULT_FLOOR_PCT = 0.5;
export const DEFAULT_SPREAD_FACTOR = 3;
/** Repetitions a side needs for a spread, hence a verdict. */
const MIN_REPETITIONS = 2;

export type InstructionsVerdict = "more-work" | "less-work" | "unchanged" | "inconclusive";

export interface InstructionsComparison {
  baseMedian: number;
  headMedian: number;
  changePct: number;
  /** The larger relative range (max - min) / median of the two sides, in %. */
  spreadPct: number;
  verdict: InstructionsVerdict;
  why?: string;
}

export interface VerdictOptions {
  floorPct?: number;
  spreadFactor?: number;
}

/** Range of the values relative to their median, in % (0 for one value). */
export function spreadPct(values: readonly number[]): number {
  if (values.length === 0) throw new Error("spread of no values");
  const m = median([...values]);
  if (m === 0) return 0;
  return ((Math.max(...values) - Math.min(...values)) / m) * 100;
}

export function compareCounts(
  base: readonly number[],
  head: readonly number[],
  options: VerdictOptions = {},
): InstructionsComparison {
  const floor = options.floorPct ?? DEFAULT_FLOOR_PCT;
  const factor = options.spreadFactor ?? DEFAULT_SPREAD_FACTOR;
  if (base.length === 0 || head.length === 0) throw new Error("compareCounts: a side has no repetitions");
  const baseMedian = median([...base]);
  const headMedian = median([...head]);
  if (baseMedian <= 0) throw new Error(`compareCounts: the base median is ${baseMedian}, not a count`);
  const changePct = ((headMedian - baseMedian) / baseMedian) * 100;
  const spread = Math.max(spreadPct(base), spreadPct(head));
  const result = { baseMedian, headMedian, changePct, spreadPct: spread };
  const size = Math.abs(changePct);
  if (base.length < MIN_REPETITIONS || head.length < MIN_REPETITIONS) {
    const why = `${base.length} vs ${head.length} repetitions: at least ${MIN_REPETITIONS} a side give a spread`;
    return { ...result, verdict: "inconclusive", why };
  }
  if (size > floor && size > factor * spread) {
    return { ...result, verdict: changePct > 0 ? "more-work" : "less-work" };
  }
  if (size <= floor && factor * spread <= floor) return { ...result, verdict: "unchanged" };
  const why =
    size > floor
      ? `the change (${size.toFixed(2)}%) is within ${factor} x the spread (${spread.toFixed(2)}%)`
      : `${factor} x the spread (${(factor * spread).toFixed(2)}%) is larger than the floor (${floor.toFixed(2)}%)`;
  return { ...result, verdict: "inconclusive", why };
}

const COUNTED_METRICS = [
  { key: "instructionsPerRequest", label: "Instructions/request" },
  { key: "cyclesPerRequest", label: "Est. cycles/request" },
] as const;

/** The verdict's floor and factor, and how many functions where-it-went keeps (default ten). */
export type CountedOptions = VerdictOptions & { whereTop?: number };

export interface CountedCellComparison {
  id: string;
  metrics: Array<{ label: string; baseN: number; headN: number } & InstructionsComparison>;
  where?: WhereItWent;
}

export interface CountedComparison extends Required<VerdictOptions> {
  cells: CountedCellComparison[];
  notCompared: Array<{ id: string; why: string }>;
  /** The variants compared, for one run holding variants. */
  variants?: { base: string; head: string };
}

/** Whether a folder (or file) holds the results of a counted run. */
export async function isInstructionsRun(dirOrFile: string): Promise<boolean> {
  const text = await readFile(resultsFilePath(dirOrFile, INSTRUCTIONS_FILE), "utf8").catch(() => undefined);
  if (text === undefined || !dirOrFile.endsWith(".json")) return text !== undefined;
  // A .json file given by name is a counted run only by its content (a results.json is not).
  try {
    return (JSON.parse(text) as { measure?: unknown } | null)?.measure === "instructions";
  } catch {
    return false;
  }
}

export async function readInstructions(
  dirOrFile: string,
): Promise<{ results: InstructionsResults; dir: string }> {
  const file = resultsFilePath(dirOrFile, INSTRUCTIONS_FILE);
  return {
    results: await readResultsFile(file, "counted results", InstructionsResults),
    dir: path.dirname(file),
  };
}

/** One cell, base against head: the verdict per metric and where the instructions went. */
export async function compareCountedCells(
  base: { cell: CountedCell; dir: string },
  head: { cell: CountedCell; dir: string },
  options: CountedOptions = {},
  id = head.cell.id,
): Promise<CountedCellComparison> {
  const metrics = COUNTED_METRICS.flatMap(({ key, label }) => {
    const b = okValues(base.cell, key);
    const h = okValues(head.cell, key);
    if (b.length === 0 || h.length === 0) return [];
    return [{ label, baseN: b.length, headN: h.length, ...compareCounts(b, h, options) }];
  });
  return { id, metrics, where: await whereItWent(base, head, options.whereTop) };
}

/** One side of a comparison: its cells by the id they share with the other side. */
interface Side {
  name: string;
  cells: Map<string, CountedCell>;
  dir: string;
}

async function compareSides(base: Side, head: Side, options: CountedOptions): Promise<CountedComparison> {
  const out: CountedComparison = {
    floorPct: options.floorPct ?? DEFAULT_FLOOR_PCT,
    spreadFactor: options.spreadFactor ?? DEFAULT_SPREAD_FACTOR,
    cells: [],
    notCompared: [],
  };
  for (const id of new Set([...base.cells.keys(), ...head.cells.keys()])) {
    const b = base.cells.get(id);
    const h = head.cells.get(id);
    if (!b || !h) out.notCompared.push({ id, why: `only in ${b ? base.name : head.name}` });
    else if (b.status !== "ok" || h.status !== "ok") {
      out.notCompared.push({ id, why: `${base.name} ${b.status}, ${head.name} ${h.status}` });
    } else {
      const compared = { cell: b, dir: base.dir };
      out.cells.push(await compareCountedCells(compared, { cell: h, dir: head.dir }, options, id));
    }
  }
  return out;
}

/** Two counted runs, unpaired: cells matched by id. */
export async function compareCountedRuns(
  baseDir: string,
  headDir: string,
  options: CountedOptions = {},
): Promise<CountedComparison> {
  const side = async (name: string, dirOrFile: string): Promise<Side> => {
    const { results, dir } = await readInstructions(dirOrFile);
    return { name, dir, cells: new Map(results.cells.map((c) => [c.id, c])) };
  };
  return compareSides(await side("base", baseDir), await side("head", headDir), options);
}

/**
 * One counted run holding variants (--variant): the head variant's cells against the base's,
 * matched by scenario and proxy, where-it-went from each variant's callgrind files. The variants
 * are picked as for a wall-clock run (--base/--head, else 'base' and 'head', else the first two).
 */
export async function compareCountedVariants(
  dir: string,
  options: CountedOptions & { base?: string; head?: string } = {},
): Promise<CountedComparison> {
  const run = await readInstructions(dir);
  const [baseName, headName] = pickVariants(run.results, { ...options, from: dir });
  const of = (variant: string): Side => ({
    name: variant,
    dir: run.dir,
    cells: new Map(
      run.results.cells
        .filter((c) => c.variant === variant)
        .map((c) => [countedCellId(c.scenario, c.proxy), c]),
    ),
  });
  const comparison = await compareSides(of(baseName), of(headName), options);
  return { ...comparison, variants: { base: baseName, head: headName } };
}

/** How many of the comparison's metrics have each verdict. */
export function verdictCounts(c: CountedComparison): Record<InstructionsVerdict, number> {
  const counts = { "more-work": 0, "less-work": 0, unchanged: 0, inconclusive: 0 };
  for (const m of c.cells.flatMap((cell) => cell.metrics)) counts[m.verdict]++;
  return counts;
}
