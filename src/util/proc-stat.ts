import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";

/** The processes of the machine from /proc/PID/stat: started ones (processes.ts), CPU accounting, leftovers. */

/** USER_HZ: the unit of /proc's CPU times, 100 on every Linux architecture. */
export const TICKS_PER_SECOND = 100;

/** Ticks: CPU time with what reaped children used (`childTicks`); `startTicks`: after boot. */
export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  ticks: number;
  childTicks: number;
  startTicks: number;
}

/** A /proc/PID/stat line (pure); the command name may hold spaces and parentheses. */
export function parseStat(stat: string): ProcStat | undefined {
  const close = stat.lastIndexOf(")");
  const f = stat.slice(close + 2).split(" ");
  const [ppid, pgrp] = [Number(f[1]), Number(f[2])];
  const childTicks = Number(f[13]) + Number(f[14]);
  if (close < 0 || !Number.isInteger(ppid) || !Number.isInteger(pgrp) || !Number.isFinite(childTicks)) {
    return undefined;
  }
  const ticks = Number(f[11]) + Number(f[12]) + childTicks;
  return { pid: parseInt(stat, 10), state: f[0]!, ppid, pgrp, ticks, childTicks, startTicks: Number(f[19]) };
}

/** utime + stime of a process and its reaped children, in seconds; undefined when it has ended. */
export async function processCpuSeconds(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").then(parseStat, () => undefined);
  return stat === undefined ? undefined : stat.ticks / TICKS_PER_SECOND;
}

const isPid = (entry: string) => /^\d+$/.test(entry);

/** Every process on the machine (one that ends meanwhile left out). */
export async function readProcesses(): Promise<ProcStat[]> {
  const pids = (await readdir("/proc").catch(() => [])).filter(isPid);
  const stats = await Promise.all(
    pids.map((pid) => readFile(`/proc/${pid}/stat`, "utf8").then(parseStat, () => undefined)),
  );
  return stats.filter((s) => s !== undefined);
}

/** One process's /proc/PID/stat, undefined when it has ended, for a caller that cannot wait. */
export function readStatSync(pid: number | string): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** readProcesses, for a caller that cannot wait. */
export function readProcessesSync(): ProcStat[] {
  return readdirSync("/proc")
    .filter(isPid)
    .flatMap((pid) => readStatSync(pid) ?? []);
}
