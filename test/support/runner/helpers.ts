import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

/** Test helpers for the runner's integration and end-to-end tests (real processes, /proc). */

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  start: string;
  cmd: string;
}

function allProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z") continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      out.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        start: fields[19] ?? "",
        cmd,
      });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Every live descendant of `pid`. */
export function descendants(pid: number): ProcInfo[] {
  const all = allProcesses();
  const found: ProcInfo[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = all.filter((p) => frontier.includes(p.ppid));
    found.push(...next);
    frontier = next.map((p) => p.pid);
  }
  return found;
}

/** Which of these processes still run (same pid and same start time). */
function runningNow(procs: ProcInfo[]): ProcInfo[] {
  const now = new Map(allProcesses().map((p) => [p.pid, p.start]));
  return procs.filter((p) => now.get(p.pid) === p.start);
}

/**
 * Which of these processes still run once `graceMs` has passed since the command exited: the
 * child guard (src/util/child-guard.ts) ends when it reads the end of its pipe, a moment after
 * its parent, so a check at the very instant of the exit can still see it.
 */
export async function stillRunning(procs: ProcInfo[], graceMs = 1000): Promise<ProcInfo[]> {
  const until = Date.now() + graceMs;
  let left = runningNow(procs);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = runningNow(left);
  }
  return left;
}

/** Live members of a process group (an nginx master's workers, say). */
export function processGroupMembers(pgid: number): ProcInfo[] {
  return allProcesses().filter((p) => p.pgid === pgid);
}

/** Processes whose command line mentions `text` (a results folder). */
export function processesMentioning(text: string): ProcInfo[] {
  return allProcesses().filter((p) => p.cmd.includes(text) && p.pid !== process.pid);
}

/**
 * A scenario folder with a light open-model load (k6 stays far from a full core, so cells are
 * ok even on a busy machine), using the built-in passthrough k6 script.
 */
export async function lightScenarioDir(
  options: { latencyMs?: number; rate?: number; vus?: number; root?: string } = {},
): Promise<string> {
  const root = options.root ?? (await mkdtemp(path.join(os.tmpdir(), "pb-scen-")));
  await mkdir(path.join(root, "light"), { recursive: true });
  const script = path.join(PROJECT_ROOT, "scenarios", "passthrough", "script.js");
  await writeFile(
    path.join(root, "light", "scenario.yml"),
    [
      "name: light",
      "description: GET /api/values at a low fixed rate.",
      `script: ${JSON.stringify(script)}`,
      "requests:",
      "  - path: /api/values",
      ...(options.latencyMs ? ["upstream:", `  latencyMs: ${options.latencyMs}`] : []),
      "check:",
      "  status: [200]",
      `  bodyEquals: '["value1","value2"]'`,
      "loads:",
      "  - label: default",
      "    model: constant-arrival-rate",
      `    rate: ${options.rate ?? 200}`,
      `    vus: ${options.vus ?? 16}`,
      "    durationS: 2",
      "    warmupS: 1",
      "",
    ].join("\n"),
  );
  return root;
}

export function collectText(): { write(t: string): boolean; text: () => string } {
  const chunks: string[] = [];
  return { write: (t: string) => chunks.push(t) > 0, text: () => chunks.join("") };
}

/**
 * A cell that measured correctly: `ok`, or `loadgen-bound` when the load generator's core was
 * busy with other work (this machine is shared with other test runs; the classification is the
 * engines' and is right to flag it). Never failed or invalid.
 */
export function measuredStatus(cell: { status: string; reasons: string[] }): string {
  // A busy machine: the load generator starved, or other work on the cores (noisy).
  if (
    (cell.status === "loadgen-bound" || cell.status === "noisy") &&
    cell.reasons.every((r) => /load generator|on the benchmark's cores/.test(r))
  )
    return "measured";
  return cell.status === "ok" ? "measured" : `${cell.status}: ${cell.reasons.join("; ")}`;
}

/** The exit code `proxybench run` must give for these cells. */
export function expectedExitCode(cells: Array<{ status: string }>): number {
  return cells.every((c) => c.status === "ok") ? 0 : 1;
}
