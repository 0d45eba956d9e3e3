import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { diesWithParent, guardGroup, releaseGroup } from "./child-guard.js";
import { firstExecutable } from "./paths.js";
import { readStatSync } from "./proc-stat.js";

/**
 * Every process proxybench starts goes through `startProcess`: it is pinned with taskset when
 * cores are given, put in its own process group, logged to a file, and registered so that
 * `stopAll` (on exit, error or Ctrl-C) leaves nothing behind. Its group also dies with this
 * process when that is killed outright (child-guard.ts), and a watcher (the run's pid files)
 * hears of each group from its start until nothing of it runs.
 */

/** A started process group, as a watcher hears of it. */
export interface ProcessRecord extends Pick<StartOptions, "name" | "command" | "args"> {
  /** The leader's pid, which is the group's id. */
  pgid: number;
  cpus: number[];
  /** The leader's start time (clock ticks after boot, /proc/PID/stat): tells a reused pid apart. */
  startTicks?: number;
}

export interface ProcessWatcher {
  started(record: ProcessRecord): void;
  /** Nothing of the group runs any more. */
  ended(pgid: number): void;
}

let watcher: ProcessWatcher | undefined;

/** Who hears of each process group started from now on (undefined: nobody). */
export function watchProcesses(next: ProcessWatcher | undefined): void {
  watcher = next;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Pin to these cores with `taskset -c`; empty or absent: not pinned. */
  cpus?: number[];
  /** stdout and stderr are appended here; absent: captured in memory (see `output()`). */
  logFile?: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class ManagedProcess {
  /** Resolves when the process exits (its children may still hold its output pipes). */
  readonly exited: Promise<ExitInfo>;
  /** Resolves once stdout and stderr are closed too: after it, output() is complete. */
  readonly drained: Promise<unknown>;
  private exitInfo: ExitInfo | undefined;
  private captured: Buffer[] = [];

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string | undefined,
  ) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        live.delete(this);
        // Workers a leader left behind keep the group held until stop() kills them.
        if (child.pid === undefined || !processExists(-child.pid)) void this.release();
        resolve(this.exitInfo);
      });
      child.once("error", () => {
        this.exitInfo ??= { code: null, signal: null };
        live.delete(this);
        void this.release();
        resolve(this.exitInfo);
      });
    });
    this.drained = once(child, "close").catch(() => undefined);
    if (!logFile) {
      child.stdout?.on("data", (chunk: Buffer) => this.captured.push(chunk));
      child.stderr?.on("data", (chunk: Buffer) => this.captured.push(chunk));
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  alive(): boolean {
    return this.exitInfo === undefined && this.child.pid !== undefined;
  }

  /** What the process printed, when it was started without a log file. */
  output(): string {
    return Buffer.concat(this.captured).toString("utf8");
  }

  /**
   * SIGTERM to the whole process group, then SIGKILL after `graceMs`; waits for the exit. When
   * the leader has already exited (an nginx master killed, say), what is left of its group (the
   * workers) is killed.
   */
  async stop(graceMs = 3000): Promise<ExitInfo> {
    let timer: NodeJS.Timeout | undefined;
    if (this.alive()) {
      signalGroup(this.child, "SIGTERM");
      timer = setTimeout(() => signalGroup(this.child, "SIGKILL"), graceMs);
    }
    try {
      return this.exitInfo ?? (await this.exited);
    } finally {
      clearTimeout(timer);
      // What the leader leaves of its group (workers slow to follow it) goes with it.
      signalGroup(this.child, "SIGKILL", false);
      await this.release();
    }
  }

  /** Nothing of the group runs any more (or what does was just sent SIGKILL): forget it. */
  private release(): Promise<void> {
    this.released ??= (async () => {
      if (!held.delete(this) || this.child.pid === undefined) return;
      watcher?.ended(this.child.pid);
      await releaseGroup(this.child.pid);
    })();
    return this.released;
  }
  private released: Promise<void> | undefined;
}

const live = new Set<ManagedProcess>();
/** Started groups not yet known to be empty: the live processes and what leaders left behind. */
const held = new Set<ManagedProcess>();

/** True while process `pid` exists, this user's or another's (a negative pid: a process of group -pid). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals, leaderToo = true): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    if (!leaderToo) return; // no group left
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Builds the argv that pins `command` to `cpus` (pure; the runner's tests use it). */
export function pinnedCommand(command: string, args: string[], cpus?: number[]): [string, string[]] {
  if (!cpus || cpus.length === 0) return [command, args];
  return ["taskset", ["-c", cpus.join(","), command, ...args]];
}

export async function startProcess(options: StartOptions): Promise<ManagedProcess> {
  // Behind taskset and setpriv a missing program would be their exit code 127: say so here.
  const searchPath = (options.env?.PATH ?? process.env.PATH ?? "")
    .split(path.delimiter)
    .map((dir) => dir || ".");
  if (!(await firstExecutable(options.command, searchPath, options.cwd))) {
    throw new Error(`cannot start ${options.name} (${options.command}): not found or not executable`);
  }
  const [command, args] = diesWithParent(...pinnedCommand(options.command, options.args, options.cpus));
  const log = options.logFile ? createWriteStream(options.logFile, { flags: "a" }) : undefined;
  if (log) await once(log, "open");
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // own process group: stop() reaches every child it forks
  });
  if (log) {
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once("exit", () => setTimeout(() => log.end(), 50));
  }
  const managed = new ManagedProcess(options.name, child, options.logFile);
  live.add(managed);
  if (child.pid !== undefined) hold(managed, child.pid, options);
  // A spawn failure (ENOENT) is reported by the 'error' event; surface it as an exit.
  await once(child, "spawn").catch((err: Error) => {
    throw new Error(`cannot start ${options.name} (${options.command}): ${err.message}`);
  });
  return managed;
}

/** The group is guarded and the watcher hears of it, until release(). */
function hold(managed: ManagedProcess, pgid: number, options: StartOptions): void {
  held.add(managed);
  guardGroup(pgid);
  const startTicks = processStartTicks(pgid);
  watcher?.started({
    name: options.name,
    pgid,
    command: options.command,
    args: options.args,
    cpus: options.cpus ?? [],
    ...(startTicks === undefined ? {} : { startTicks }),
  });
}

/** When a process started, in clock ticks after boot (field 22 of /proc/PID/stat); undefined when gone. */
export function processStartTicks(pid: number): number | undefined {
  return readStatSync(pid)?.startTicks;
}

/** Runs a command to completion and returns its exit code and combined output. */
export async function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const proc = await startProcess({ name: command, command, args, cwd: options.cwd, env: options.env });
  const timer = options.timeoutMs ? setTimeout(() => void proc.stop(500), options.timeoutMs) : undefined;
  const { code } = await proc.exited;
  await proc.drained;
  if (timer) clearTimeout(timer);
  return { code, output: proc.output() };
}

/** Processes started and not yet exited. */
export function liveProcesses(): ManagedProcess[] {
  return [...live];
}

/** Stops every live process and what exited leaders left; used at the end of a run, on error and on signals. */
export async function stopAll(graceMs = 3000): Promise<void> {
  await Promise.all([...held].map((p) => p.stop(graceMs)));
}

// Last resort when the event loop is gone: no grace, but nothing left running.
process.once("exit", () => {
  for (const p of held) signalGroup(p.child, "SIGKILL");
});

/**
 * Makes SIGINT and SIGTERM stop every child and then call `onSignal` (which should save what
 * was measured and set the exit code). Returns a function that removes the handlers.
 */
export function onInterrupt(onSignal: (signal: NodeJS.Signals) => Promise<void> | void): () => void {
  const handler = (signal: NodeJS.Signals) => {
    void (async () => {
      await stopAll(1000);
      await onSignal(signal);
      process.exit(signal === "SIGINT" ? 130 : 143);
    })();
  };
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}
