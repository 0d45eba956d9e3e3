import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { classifyRepetition, getEngine, probe } from "../src/engines/index.js";
import { readResults } from "../src/results/io.js";
import type { Results } from "../src/results/schema.js";
import type { RunDeps } from "../src/measures/wall-clock/context.js";
import { runBenchmark } from "../src/measures/wall-clock/run.js";
import type { RunRequest } from "../src/runner/settings.js";
import { PROJECT_ROOT } from "../src/util/paths.js";

/**
 * Faults injected into real runs: `kill -9` of the CLI, of k6, of a proxy or of the upstream at
 * a chosen moment, and what each leaves. Used by bench/faults.ts (many kills, figures printed)
 * and test/load/measures/wall-clock/faults.test.ts (a few, asserted).
 */

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

/** Every live descendant of `pid`, and the members of their process groups (workers a master left). */
export function processTree(pid: number): ProcInfo[] {
  const all = allProcesses();
  const found: ProcInfo[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = all.filter((p) => frontier.includes(p.ppid));
    found.push(...next);
    frontier = next.map((p) => p.pid);
  }
  // groups a descendant leads (an nginx master's), not the group this process is in
  const groups = new Set(found.filter((p) => p.pgid === p.pid).map((p) => p.pgid));
  return [...found, ...all.filter((p) => groups.has(p.pgid) && !found.some((f) => f.pid === p.pid))];
}

/** Which of `procs` still run (same pid and start time), and any process naming `text` (a results folder). */
function stillThere(procs: readonly ProcInfo[], text: string): ProcInfo[] {
  const all = allProcesses();
  const now = new Map(all.map((p) => [p.pid, p.start]));
  const same = procs.filter((p) => now.get(p.pid) === p.start);
  const mentioning = all.filter((p) => p.cmd.includes(text) && !same.some((s) => s.pid === p.pid));
  return [...same, ...mentioning.filter((p) => p.pid !== process.pid)];
}

/** What of `procs` (or naming `text`) still runs once `waitMs` has passed, or sooner once nothing does. */
export async function leftAfter(
  procs: readonly ProcInfo[],
  text: string,
  waitMs: number,
): Promise<ProcInfo[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = stillThere(procs, text);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const BIN = path.join(PROJECT_ROOT, "bin", "proxybench.js");

export interface CliOutcome {
  code: number | null;
  stderr: string;
}

/**
 * `proxybench ARGS` as a user types it. With `killAfterMs`: once the run has said where its
 * results go, wait that long, note its processes and kill it with SIGKILL (`killed`, false when
 * the run ended first; `snapshot`: its processes then).
 */
export function runCli(
  args: string[],
  options: { cwd: string; killAfterMs?: number },
): Promise<CliOutcome & { snapshot: ProcInfo[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    let snapshot: ProcInfo[] = [];
    let armed = false;
    let killed = false;
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (options.killAfterMs === undefined || armed || !/results in /.test(stderr)) return;
      armed = true;
      setTimeout(() => {
        if (child.exitCode !== null || child.pid === undefined) return;
        snapshot = processTree(child.pid);
        killed = child.kill("SIGKILL");
      }, options.killAfterMs);
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stderr, snapshot, killed }));
  });
}

/** Whether results.json in `dir` reads and validates against the schema (the reason when not). */
export async function resultsProblem(dir: string): Promise<string | undefined> {
  return readResults(dir).then(
    () => undefined,
    (err: unknown) => (err as Error).message,
  );
}

/**
 * Whether the run in `dir` holds the cells a clean run would: one finished cell per proxy, in
 * order, each with every repetition and none failed (the reasons when not).
 */
export async function incompleteCells(
  dir: string,
  proxies: string[],
  repetitions: number,
): Promise<string[]> {
  const results = await readResults(dir).catch(() => undefined);
  if (!results) return ["no valid results.json"];
  const problems: string[] = [];
  const got = results.cells.map((c) => c.proxy);
  if (got.join(",") !== proxies.join(",")) problems.push(`cells ${got.join(",")}, not ${proxies.join(",")}`);
  for (const c of results.cells) {
    if (c.finishedAt === undefined) problems.push(`${c.id} unfinished`);
    if (c.status === "failed") problems.push(`${c.id} failed: ${c.reasons.join("; ")}`);
    else if (c.repetitions.length !== repetitions)
      problems.push(`${c.id}: ${c.repetitions.length} repetitions`);
  }
  if (results.finishedAt === undefined) problems.push("the run has no finishedAt");
  return problems;
}

/** A light open-model scenario (k6 far from a full core) for short runs; its scenarios folder. */
export async function faultScenarioDir(root: string): Promise<string> {
  await mkdir(path.join(root, "faults"), { recursive: true });
  await writeFile(
    path.join(root, "faults", "scenario.yml"),
    [
      "name: faults",
      "description: GET /api/values at a low fixed rate, for runs that are killed.",
      `script: ${JSON.stringify(path.join(PROJECT_ROOT, "scenarios", "passthrough", "script.js"))}`,
      "requests:",
      "  - path: /api/values",
      "check:",
      "  status: [200]",
      "loads:",
      "  - label: default",
      "    model: constant-arrival-rate",
      "    rate: 100",
      "    vus: 8",
      "    durationS: 1",
      "    warmupS: 0",
      "",
    ].join("\n"),
  );
  return root;
}

/** The runner with the real engines, quiet; `onMeasure` where faults are injected. */
export function quietDeps(onMeasure: RunDeps["onMeasure"]): RunDeps {
  const sink = { write: () => true };
  return {
    engines: { getEngine, classifyRepetition, probe },
    stdout: sink,
    stderr: sink,
    handleSignals: false,
    ...(onMeasure ? { onMeasure } : {}),
  };
}

/** Kills (SIGKILL) the first process under this one whose command line matches; its pid, if one did. */
export function killOwn(pattern: RegExp): number | undefined {
  const target = processTree(process.pid).find((p) => pattern.test(p.cmd));
  if (!target) return undefined;
  try {
    process.kill(target.pid, "SIGKILL");
    return target.pid;
  } catch {
    return undefined;
  }
}

export const K6 = /(^|\/)k6 run /;

/**
 * A run in this process whose every repetition has k6 killed once, `delayMs()` after k6 started
 * (its re-measurement is left alone): the results and how many k6 processes were killed.
 */
export async function runKillingK6Once(
  request: RunRequest,
  delayMs: () => number,
): Promise<{ results: Results; kills: number }> {
  const starts = new Map<string, number>();
  let current: string | undefined;
  let kills = 0;
  const timers: NodeJS.Timeout[] = [];
  const deps = quietDeps((event) => {
    const key = `${event.cellId}#${event.round}`;
    if (event.phase === "end") {
      current = undefined;
      return;
    }
    current = key;
    starts.set(key, (starts.get(key) ?? 0) + 1);
    if (starts.get(key) !== 1) return;
    const kill = () => {
      // only the first try of this repetition, while it runs
      if (current === key && starts.get(key) === 1 && killOwn(K6) !== undefined) kills += 1;
    };
    // k6 takes a while to start on a busy machine: the delay counts from its start
    const watch = (tries: number) => {
      if (current !== key) return;
      const started = processTree(process.pid).some((p) => K6.test(p.cmd));
      if (started) timers.push(setTimeout(kill, delayMs()));
      else if (tries > 0) timers.push(setTimeout(() => watch(tries - 1), 25));
    };
    watch(400);
  });
  const outcome = await runBenchmark(request, deps);
  for (const t of timers) clearTimeout(t);
  return { results: outcome.results, kills };
}
