import { median } from "simple-statistics";
import { escapeMarkdown } from "../../render/escape.js";
import { spreadPct } from "./compare.js";
import { CYCLE_WEIGHTS } from "./callgrind.js";
import { okValues, type CountedCell, type InstructionsResults } from "./schema.js";

/** The markdown of one `proxybench count`: per scenario, one row per proxy. Pure. */

export function formatCount(x: number): string {
  return x.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** A change with its sign: `+1.23`, `-0.50`. */
export function signed(x: number, digits = 2): string {
  return `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`;
}

function row(cell: CountedCell): string {
  const name = escapeMarkdown(cell.variant === undefined ? cell.proxy : `${cell.proxy} (${cell.variant})`);
  if (cell.status !== "ok") return `| ${name} | ${cell.status} | | | ${cell.repetitions.length} |`;
  const ir = okValues(cell, "instructionsPerRequest");
  if (ir.length === 0) return `| ${name} | not yet measured | | | 0 |`;
  const cycles = okValues(cell, "cyclesPerRequest");
  const cyc = cycles.length > 0 ? formatCount(median(cycles)) : "n/a";
  return `| ${name} | ${formatCount(median(ir))} | ${spreadPct(ir).toFixed(3)}% | ${cyc} | ${ir.length} |`;
}

export function renderInstructionsMarkdown(results: InstructionsResults): string {
  const s = results.settings;
  const lines = [
    `## proxybench instructions: ${escapeMarkdown(results.runId)}`,
    "",
    `Each repetition: the proxy alone under callgrind (Valgrind ${escapeMarkdown(s.valgrind)}), ` +
      `${s.warmupRequests} warm-up requests, then ${s.requests} counted requests, one at a time over ` +
      `${s.connections} keep-alive connection(s). Values are medians over the repetitions; spread is ` +
      `(max - min) / median. Cycles are estimated as Ir + ${CYCLE_WEIGHTS.l1Miss} x L1 misses + ` +
      `${CYCLE_WEIGHTS.llMiss} x last-level misses (callgrind's simulated caches).`,
  ];
  for (const scenario of s.scenarios) {
    const cells = results.cells.filter((c) => c.scenario === scenario);
    lines.push("", `### ${escapeMarkdown(scenario)}`, "");
    if (cells.length === 0) {
      lines.push("Nothing counted on this scenario: its proxies are under Skipped.");
      continue;
    }
    const header = "| proxy | instructions/request | spread | est. cycles/request | repetitions |";
    lines.push(header, "| :-- | --: | --: | --: | --: |", ...cells.map(row));
    for (const { proxy, reasons } of cells.filter((c) => c.status !== "ok"))
      lines.push("", `- ${escapeMarkdown(proxy)}: ${reasons.slice(0, 3).map(escapeMarkdown).join("; ")}`);
  }
  const skipped = results.skipped.map((s) => `- ${escapeMarkdown(s.proxy)}: ${escapeMarkdown(s.reason)}`);
  if (skipped.length > 0) lines.push("", "Skipped:", ...skipped);
  return `${lines.join("\n")}\n`;
}
