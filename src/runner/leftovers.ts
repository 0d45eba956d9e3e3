import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { RESULTS_FILE } from "../results/io.js";
import type { CpuLayout } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";
import { layoutCores } from "./cpus.js";
import { processStartTicks, watchProcesses, type ProcessRecord } from "../util/processes.js";
import { readProcessesSync, type ProcStat } from "../util/proc-stat.js";

/**
 * What a run leaves behind when it is killed outright, and how the next one finds it. Each
 * process group a run starts has a pid file in `<results>/work/pids/` from its start until
 * nothing of it runs, and the run itself has `owner.json` there; every results folder with a
 * run is listed in a registry under the temporary folder, so that a run of another folder (and
 * `doctor`) can see what still holds the cores.
 *
 * A pid file's group counts only while the kernel has not given its number to another group:
 * the leader is either gone (its workers hold the number) or the same process (same start time,
 * same boot).
 */

const PIDS = path.join("work", "pids");
const OWNER = "owner.json";

type PidFile = Pick<ProcessRecord, "name" | "pgid" | "startTicks" | "cpus"> & {
  bootId: string;
  command: string;
};

type OwnerFile = Pick<PidFile, "startTicks" | "bootId"> & { pid: number };

/** A process group an earlier run left running (`cpus`: the cores it was pinned to; empty: any core). */
export interface Leftover extends Pick<PidFile, "name" | "pgid" | "cpus"> {
  /** The results folder of the run that started it. */
  dir: string;
  /** Its processes that still run. */
  pids: number[];
}

/** Every process on the machine, zombies left out. */
function processTable(): ProcStat[] {
  return readProcessesSync().filter((p) => p.state !== "Z");
}

/** What `read` returns, or undefined when it throws (a file missing, or cut short by the kill: nothing to go on). */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

let cachedBootId: string | undefined;
function bootId(): string {
  cachedBootId ??=
    attempt(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8"))?.trim() ?? "unknown";
  return cachedBootId;
}

/** The names in a folder; none when it cannot be read (it does not exist yet). */
function listDir(dir: string): string[] {
  return attempt(() => readdirSync(dir)) ?? [];
}

/** A JSON file's value; undefined when it is missing or cut short by the kill. */
function readJson<T>(file: string): T | undefined {
  return attempt(() => JSON.parse(readFileSync(file, "utf8")) as T);
}

/** Whether a recorded process's number now names another: another boot's, or started at another time. */
function numberReused(record: Pick<PidFile, "startTicks" | "bootId">, now: ProcStat | undefined): boolean {
  if (record.bootId !== bootId()) return true;
  return now !== undefined && record.startTicks !== undefined && now.startTicks !== record.startTicks;
}

/** The live processes of a recorded group, or [] when its number now names another group. */
function groupMembers(record: PidFile, table: readonly ProcStat[]): number[] {
  const leader = table.find((p) => p.pid === record.pgid);
  if (numberReused(record, leader)) return [];
  return table.filter((p) => p.pgrp === record.pgid).map((p) => p.pid);
}

/** The pid of the live run that owns `dir` (this process, possibly), if one does. */
function liveOwner(dir: string, table: readonly ProcStat[]): number | undefined {
  const owner = readJson<OwnerFile>(path.join(dir, PIDS, OWNER));
  const proc = owner && table.find((p) => p.pid === owner.pid);
  return proc && !numberReused(owner, proc) ? proc.pid : undefined;
}

/** The groups `dir`'s earlier runs left running; pid files of groups that ended are removed. */
function leftoversIn(dir: string, table: readonly ProcStat[]): Leftover[] {
  const folder = path.join(dir, PIDS);
  const names = listDir(folder).filter((n) => n !== OWNER && n.endsWith(".json"));
  const found: Leftover[] = [];
  for (const name of names) {
    const record = readJson<PidFile>(path.join(folder, name));
    const pids = record ? groupMembers(record, table) : [];
    if (record && pids.length > 0) {
      found.push({ dir, name: record.name, pgid: record.pgid, pids, cpus: record.cpus });
    } else {
      rmSync(path.join(folder, name), { force: true });
    }
  }
  return found;
}

/** Registry of results folders with a run, one file each (named by a hash of the folder). */
function registryDir(): string {
  return path.join(os.tmpdir(), `proxybench-${os.userInfo().uid}`, "runs");
}

function registryEntry(dir: string): string {
  return path.join(registryDir(), createHash("sha256").update(dir).digest("hex").slice(0, 16));
}

function registeredDirs(): string[] {
  return listDir(registryDir())
    .map((n) => attempt(() => readFileSync(path.join(registryDir(), n), "utf8")))
    .filter((d): d is string => d !== undefined && d.length > 0);
}

/**
 * Every group that earlier runs (of any results folder, their own run dead) left running; a
 * folder whose run ended and left nothing leaves the registry.
 */
export function findLeftovers(): Leftover[] {
  const table = processTable();
  const found: Leftover[] = [];
  for (const dir of registeredDirs()) {
    if (liveOwner(dir, table) !== undefined) continue;
    const left = leftoversIn(dir, table);
    if (left.length === 0) rmSync(registryEntry(dir), { force: true });
    found.push(...left);
  }
  return found;
}

/** Pure: how a leftover is named to the user. */
export function describeLeftover(l: Leftover): string {
  const cores = l.cpus.length > 0 ? `cores ${l.cpus.join(",")}` : "not pinned";
  return `${l.name} (pid ${l.pids.join(",")}, ${cores}) of ${l.dir}`;
}

/** Pure: the command that stops these groups. */
export function stopCommand(leftovers: readonly Leftover[]): string {
  return `kill -KILL -- ${leftovers.map((l) => `-${l.pgid}`).join(" ")}`;
}

/** Kills the groups and waits (up to `waitMs`) until none of their processes runs. */
async function killGroups(leftovers: readonly Leftover[], waitMs = 5000): Promise<void> {
  for (const l of leftovers) attempt(() => process.kill(-l.pgid, "SIGKILL")); // throws: gone already
  const pids = new Set(leftovers.flatMap((l) => l.pids));
  const deadline = Date.now() + waitMs;
  while (processTable().some((p) => pids.has(p.pid)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The run's record of what it started, and how it stops keeping one. */
export interface RunLedger {
  close(): void;
}

/**
 * Before a run of `dir` starts anything: stops what earlier runs of the folder left running
 * (saying so), refuses when another live run owns the folder or when processes other runs left
 * hold the run's cores (naming them and the command that stops them), then keeps the pid files
 * of every group it starts until `close()`.
 */
export async function openRunLedger(
  dir: string,
  cpus: CpuLayout,
  say: (line: string) => void,
): Promise<RunLedger> {
  const table = processTable();
  const owner = liveOwner(dir, table);
  if (owner !== undefined && owner !== process.pid) {
    throw new UserError(
      `${dir} is in use by another proxybench run (pid ${owner}); wait for it or stop it: kill ${owner}`,
    );
  }
  const own = leftoversIn(dir, table);
  if (own.length > 0) {
    await killGroups(own);
    say(`stopped what an earlier run of this folder left running: ${own.map(describeLeftover).join("; ")}`);
  }
  removeTemporaries(dir);
  refuseUsedCores(dir, layoutCores(cpus));
  return keepLedger(dir);
}

/** results.json.tmp-PID files that a run killed while writing left beside results.json. */
function removeTemporaries(dir: string): void {
  for (const name of listDir(dir)) {
    if (name.startsWith(`${RESULTS_FILE}.tmp-`)) rmSync(path.join(dir, name), { force: true });
  }
}

function refuseUsedCores(dir: string, cores: number[]): void {
  // Those pinned to the run's cores: an unpinned one (a docker client, a version check) holds no
  // core of its own: doctor lists it, a run does not refuse for it.
  const busy = findLeftovers().filter((l) => l.dir !== dir && l.cpus.some((c) => cores.includes(c)));
  if (busy.length === 0) return;
  throw new UserError(
    `cores ${cores.join(",")} are still used by processes that earlier proxybench runs left running: ` +
      `${busy.map(describeLeftover).join("; ")}. Stop them with: ${stopCommand(busy)}`,
    1,
  );
}

function keepLedger(dir: string): RunLedger {
  const folder = path.join(dir, PIDS);
  mkdirSync(folder, { recursive: true });
  const ownerFile = path.join(folder, OWNER);
  const owner: OwnerFile = {
    pid: process.pid,
    bootId: bootId(),
    ...withoutUndefined({ startTicks: processStartTicks(process.pid) }),
  };
  writeFileSync(ownerFile, `${JSON.stringify(owner)}\n`);
  mkdirSync(registryDir(), { recursive: true, mode: 0o700 });
  writeFileSync(registryEntry(dir), dir);
  const pidFile = (pgid: number) => path.join(folder, `${pgid}.json`);
  watchProcesses({
    // Best effort: a pid file that cannot be written (a full disk) leaves the guard to stop it.
    started: (r: ProcessRecord) => attempt(() => writeFileSync(pidFile(r.pgid), pidRecord(r))),
    ended: (pgid) => rmSync(pidFile(pgid), { force: true }),
  });
  return {
    close() {
      watchProcesses(undefined);
      rmSync(ownerFile, { force: true });
      if (leftoversIn(dir, processTable()).length === 0) rmSync(registryEntry(dir), { force: true });
    },
  };
}

function pidRecord(r: ProcessRecord): string {
  const record: PidFile = {
    name: r.name,
    pgid: r.pgid,
    bootId: bootId(),
    command: [r.command, ...r.args].join(" "),
    cpus: r.cpus,
    ...pickDefined(r, ["startTicks"]),
  };
  return `${JSON.stringify(record)}\n`;
}
