import { readdir, readFile } from "node:fs/promises";

/**
 * CPU time (user + system, children included) of every process in a process group, in
 * seconds: a proxy's master and its workers. Linux /proc; undefined elsewhere.
 */
export async function groupCpuSeconds(pgid: number): Promise<number | undefined> {
  const entries = await readdir("/proc").catch(() => undefined);
  if (!entries) return undefined;
  let total = 0;
  let found = false;
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (pid) => {
        const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
        const parsed = stat === undefined ? undefined : parseStat(stat);
        if (parsed && parsed.pgrp === pgid) {
          total += parsed.cpuSeconds;
          found = true;
        }
      }),
  );
  return found ? total : undefined;
}

/** Process group and CPU seconds (utime+stime+cutime+cstime) of a /proc/PID/stat line. Pure. */
export function parseStat(
  stat: string,
  ticksPerSecond = 100,
): { pgrp: number; cpuSeconds: number } | undefined {
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  const fields = stat.slice(close + 2).split(" ");
  const pgrp = Number(fields[2]);
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
  return Number.isFinite(pgrp) ? { pgrp, cpuSeconds: ticks / ticksPerSecond } : undefined;
}
