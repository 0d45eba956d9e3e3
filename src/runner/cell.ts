import { worstStatus, type Cell } from "../results/schema.js";
import type { ActiveCell } from "./context.js";
import { proxyStem } from "./plan.js";

export class Interrupted extends Error {}

export const LOG_TAIL_LINES = 8;

export function oneLine(text: string): string {
  return text.split("\n").join(" | ");
}

export async function stopCell(a: ActiveCell): Promise<void> {
  a.stopped = true;
  // Also when the proxy died: its runtime removes what it left (workers, a container).
  await a.proc?.stop();
  await a.sidecar?.proc.stop();
}

type Judged = Pick<Cell, "status" | "reasons">;

/**
 * A cell's status and reasons, wall-clock or counted: the worst status of its repetitions and its
 * own problems, each reason once.
 */
export function updateCell(
  cell: Judged & { repetitions: Judged[] },
  problems: ActiveCell["problems"] = [],
): void {
  cell.status = worstStatus([...problems.map((p) => p.status), ...cell.repetitions.map((r) => r.status)]);
  const reasons = [...cell.repetitions.flatMap((r) => r.reasons), ...problems.map((p) => p.reason)];
  cell.reasons = [...new Set(reasons)];
}

export function finishCell(a: ActiveCell): void {
  updateCell(a.cell, a.problems);
  a.cell.finishedAt = new Date().toISOString();
}

/** "nginx" or "nginx (head)" in a variant run: how progress lines name a cell. */
export function cellName(a: ActiveCell): string {
  const v = a.planned.variant;
  return v === undefined ? a.planned.proxy.manifest.name : `${a.planned.proxy.manifest.name} (${v})`;
}

/** File-name part of a cell: "nginx" or "nginx@head". */
export function cellStem(a: ActiveCell): string {
  return proxyStem(a.planned.proxy.manifest.name, a.planned.variant);
}
