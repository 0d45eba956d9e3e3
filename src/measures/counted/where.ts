import { readFile } from "node:fs/promises";
import path from "node:path";
import { median } from "simple-statistics";
import { eventCost, parseCallgrind } from "./callgrind.js";
import { UserError } from "../../util/errors.js";
import { pickDefined, withoutUndefined } from "../../util/objects.js";
import { INSTRUCTIONS_FILE, type CountedCell } from "./schema.js";

/**
 * "Where it went": per function, instructions per request (self and inclusive, the median over
 * the repetitions' callgrind files), base against head, largest changes first.
 */

export interface FunctionPerRequest {
  self: number;
  inclusive: number;
  object?: string;
}

export interface FunctionChange {
  name: string;
  object?: string;
  base: number;
  head: number;
  delta: number;
}

export interface WhereItWent {
  self: FunctionChange[];
  inclusive: FunctionChange[];
}

const WHERE_TOP = 10;

/**
 * A repetition's callgrindFile inside its results folder: results downloaded from another run
 * (a fork's artifact) are data, and a path out of the folder is refused, not read.
 */
export function insideResults(dir: string, file: string): string {
  const root = path.resolve(dir);
  const full = path.resolve(root, file);
  if (path.isAbsolute(file) || !full.startsWith(`${root}${path.sep}`)) {
    throw new UserError(
      `${path.join(root, INSTRUCTIONS_FILE)}: callgrindFile '${file}' is not inside the results folder`,
    );
  }
  return full;
}

/** Per function, the median over repetitions of its Ir per request (0 in a repetition without it). */
async function functionsPerRequest(cell: CountedCell, dir: string): Promise<Map<string, FunctionPerRequest>> {
  const reps = cell.repetitions.filter(
    (r) => r.status === "ok" && r.callgrindFile !== undefined && r.requests > 0,
  );
  const perRep: Array<Map<string, FunctionPerRequest>> = [];
  for (const rep of reps) {
    const { events, functions } = parseCallgrind(
      await readFile(insideResults(dir, rep.callgrindFile as string), "utf8"),
    );
    const perRequest = (f: (typeof functions)[number]): FunctionPerRequest => ({
      self: eventCost(events, f.self, "Ir") / rep.requests,
      inclusive: eventCost(events, f.inclusive, "Ir") / rep.requests,
      ...pickDefined(f, ["object"]),
    });
    perRep.push(new Map(functions.map((f) => [f.name, perRequest(f)])));
  }
  const names = new Set(perRep.flatMap((m) => [...m.keys()]));
  const out = new Map<string, FunctionPerRequest>();
  for (const name of names) {
    const all = perRep.map((m) => m.get(name));
    out.set(name, {
      self: median(all.map((f) => f?.self ?? 0)),
      inclusive: median(all.map((f) => f?.inclusive ?? 0)),
      ...withoutUndefined({ object: all.find((f) => f?.object !== undefined)?.object }),
    });
  }
  return out;
}

/** The functions whose cost per request changed most, by absolute change. Pure. */
export function largestChanges(
  base: ReadonlyMap<string, FunctionPerRequest>,
  head: ReadonlyMap<string, FunctionPerRequest>,
  kind: "self" | "inclusive",
  top = WHERE_TOP,
): FunctionChange[] {
  const names = new Set([...base.keys(), ...head.keys()]);
  const changes = [...names].map((name) => {
    const b = base.get(name);
    const h = head.get(name);
    const before = b?.[kind] ?? 0;
    const after = h?.[kind] ?? 0;
    const object = withoutUndefined({ object: h?.object ?? b?.object });
    return { name, ...object, base: before, head: after, delta: after - before };
  });
  return changes
    .filter((c) => c.delta !== 0)
    .sort(byLargestChange)
    .slice(0, top);
}

/** Largest absolute change first, then by name. */
export function byLargestChange(a: FunctionChange, b: FunctionChange): number {
  return Math.abs(b.delta) - Math.abs(a.delta) || a.name.localeCompare(b.name);
}

export async function whereItWent(
  base: { cell: CountedCell; dir: string },
  head: { cell: CountedCell; dir: string },
  top = WHERE_TOP,
): Promise<WhereItWent> {
  const b = await functionsPerRequest(base.cell, base.dir);
  const h = await functionsPerRequest(head.cell, head.dir);
  return { self: largestChanges(b, h, "self", top), inclusive: largestChanges(b, h, "inclusive", top) };
}
