import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  compareCounts,
  DEFAULT_FLOOR_PCT,
  DEFAULT_SPREAD_FACTOR,
  type InstructionsComparison,
  type VerdictOptions,
} from "../stats/instructions-verdict.js";
import { formatSchemaError, UserError } from "../util/errors.js";
import { INSTRUCTIONS_FILE, InstructionsResults, type CountedCell } from "./schema.js";
import { whereItWent, type WhereItWent } from "./where.js";

/** Head against base for counted runs: per cell, instructions and estimated cycles per request. */

export const COUNTED_METRICS = [
  { key: "instructionsPerRequest", label: "Instructions/request" },
  { key: "cyclesPerRequest", label: "Est. cycles/request" },
] as const;

export interface CountedCellComparison {
  id: string;
  metrics: Array<{ label: string; baseN: number; headN: number } & InstructionsComparison>;
  where?: WhereItWent;
}

export interface CountedComparison {
  floorPct: number;
  spreadFactor: number;
  cells: CountedCellComparison[];
  notCompared: Array<{ id: string; why: string }>;
}

/** Whether a folder (or file) holds the results of a counted run. */
export async function isInstructionsRun(dirOrFile: string): Promise<boolean> {
  return readFile(instructionsFile(dirOrFile)).then(
    () => true,
    () => false,
  );
}

function instructionsFile(dirOrFile: string): string {
  return dirOrFile.endsWith(".json") ? dirOrFile : path.join(dirOrFile, INSTRUCTIONS_FILE);
}

export async function readInstructions(
  dirOrFile: string,
): Promise<{ results: InstructionsResults; dir: string }> {
  const file = instructionsFile(dirOrFile);
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new UserError(`${file}: cannot read counted results (${(err as Error).message})`);
  }
  const parsed = InstructionsResults.safeParse(data);
  if (!parsed.success) throw new UserError(formatSchemaError(file, parsed.error));
  return { results: parsed.data, dir: path.dirname(file) };
}

function values(cell: CountedCell, key: (typeof COUNTED_METRICS)[number]["key"]): number[] {
  return cell.repetitions.flatMap((r) => (r.status === "ok" && r[key] !== undefined ? [r[key]] : []));
}

/** One cell, base against head: the verdict per metric and where the instructions went. */
export async function compareCountedCells(
  base: { cell: CountedCell; dir: string },
  head: { cell: CountedCell; dir: string },
  options: VerdictOptions = {},
  id = head.cell.id,
): Promise<CountedCellComparison> {
  const metrics = COUNTED_METRICS.flatMap(({ key, label }) => {
    const b = values(base.cell, key);
    const h = values(head.cell, key);
    if (b.length === 0 || h.length === 0) return [];
    return [{ label, baseN: b.length, headN: h.length, ...compareCounts(b, h, options) }];
  });
  return { id, metrics, where: await whereItWent(base, head) };
}

export async function compareCountedRuns(
  baseDir: string,
  headDir: string,
  options: VerdictOptions = {},
): Promise<CountedComparison> {
  const base = await readInstructions(baseDir);
  const head = await readInstructions(headDir);
  const out: CountedComparison = {
    floorPct: options.floorPct ?? DEFAULT_FLOOR_PCT,
    spreadFactor: options.spreadFactor ?? DEFAULT_SPREAD_FACTOR,
    cells: [],
    notCompared: [],
  };
  const ids = [...new Set([...base.results.cells, ...head.results.cells].map((c) => c.id))];
  for (const id of ids) {
    const b = base.results.cells.find((c) => c.id === id);
    const h = head.results.cells.find((c) => c.id === id);
    if (!b || !h) out.notCompared.push({ id, why: `only in ${b ? "base" : "head"}` });
    else if (b.status !== "ok" || h.status !== "ok") {
      out.notCompared.push({ id, why: `base ${b.status}, head ${h.status}` });
    } else
      out.cells.push(
        await compareCountedCells({ cell: b, dir: base.dir }, { cell: h, dir: head.dir }, options),
      );
  }
  return out;
}

export function countedRegressions(c: CountedComparison): number {
  return c.cells.reduce((n, cell) => n + cell.metrics.filter((m) => m.verdict === "more-work").length, 0);
}
