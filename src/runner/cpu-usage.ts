import { readdir, readFile, writeFile } from "node:fs/promises";
import { succeeds } from "./cgroup-peak.js";
import { parseStat, readProcesses, TICKS_PER_SECOND } from "../util/proc-stat.js";
import type { ResourceUsage } from "./runtime.js";

/**
 * What a native proxy (a process group: a master and its workers) has used so far, from Linux
 * /proc; undefined elsewhere. CPU time comes in nanoseconds from each thread's
 * /proc/PID/task/TID/schedstat (its run time, user and system together), not from the 10 ms
 * ticks of /proc/PID/stat: over a 5 s window at 1000 req/s a tick is 10 us per request.
 *
 * A thread or process that ends takes its time with it, unless a process of the group reaps it:
 * then its whole life's CPU time moves into the parent's cutime and cstime (ticks), which are
 * added too. So a worker that dies and is respawned by the master is counted (its time before
 * the first reading cancels out, to a tick); a thread that ends inside a living process loses
 * its time since the last reading. Proxies keep their threads for their life (nginx, HAProxy,
 * Envoy, Go's runtime), so that loss is not expected; a group reaped from outside (never here:
 * the runner starts the group leader) would lose it too.
 */

/**
 * The native runtime's `usage()` of a process group: CPU time (its live threads' plus that of the
 * children its processes reaped) and the sum of its processes' peak resident sets (VmHWM), which
 * a reset starts over (VmHWM back to VmRSS) for the next reading.
 */
export function groupUsageReader(pgid: number): (resetPeak: boolean) => Promise<ResourceUsage | undefined> {
  let peakSinceReset = false;
  return async (resetPeak) => {
    const pids = (await readProcesses()).filter((p) => p.pgrp === pgid).map((p) => p.pid);
    const readings = await Promise.all(pids.map(async (pid) => ({ pid, ...(await readProcessUsage(pid)) })));
    const found = readings.filter((r) => r.cpuNs !== undefined);
    if (found.length === 0) return undefined;
    const sum = (figure: "cpuNs" | "peakRssBytes") => found.reduce((total, r) => total + r[figure]!, 0);
    const reading: ResourceUsage = {
      cpuNs: sum("cpuNs"),
      peakMemoryBytes: sum("peakRssBytes"),
      peakSinceReset,
      source: "proc",
    };
    if (resetPeak) peakSinceReset = await resetPeakRss(found.map((r) => r.pid));
    return reading;
  };
}

/**
 * Sets each process's peak resident set back to its current one (`5` into /proc/PID/clear_refs),
 * so that the next VmHWM is the peak from now on. False when a process refused it.
 */
async function resetPeakRss(pids: readonly number[]): Promise<boolean> {
  const done = await Promise.all(pids.map((pid) => succeeds(writeFile(`/proc/${pid}/clear_refs`, "5"))));
  return done.every(Boolean);
}

async function readProcessUsage(pid: number): Promise<{ cpuNs: number; peakRssBytes: number } | undefined> {
  const [stat, status, tids] = await Promise.all([
    readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined),
    readFile(`/proc/${pid}/status`, "utf8").catch(() => undefined),
    readdir(`/proc/${pid}/task`).catch(() => [] as string[]),
  ]);
  const parsed = stat === undefined ? undefined : parseStat(stat);
  if (parsed === undefined) return undefined;
  const threads = await Promise.all(
    tids.map((tid) =>
      readFile(`/proc/${pid}/task/${tid}/schedstat`, "utf8").then(parseSchedstat, () => undefined),
    ),
  );
  const runNs = threads.reduce<number>((sum, ns) => sum + (ns ?? 0), 0);
  return {
    cpuNs: runNs + (parsed.childTicks * 1e9) / TICKS_PER_SECOND,
    peakRssBytes: status === undefined ? 0 : (parseStatusKb(status, "VmHWM") ?? 0) * 1024,
  };
}

/** A thread's run time in ns: the first field of /proc/PID/task/TID/schedstat (pure). */
export function parseSchedstat(text: string): number | undefined {
  const ns = Number(text.trim().split(/\s+/)[0]);
  return text.trim() !== "" && Number.isFinite(ns) && ns >= 0 ? ns : undefined;
}

/** A `Name:   1234 kB` field of /proc/PID/status, in kB (pure); undefined when absent. */
export function parseStatusKb(status: string, name: string): number | undefined {
  const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, "m").exec(status);
  return match === null ? undefined : Number(match[1]);
}
