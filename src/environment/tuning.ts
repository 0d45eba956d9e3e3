import { readdir, readFile } from "node:fs/promises";
import type { Environment } from "../results/schema.js";
import { withoutUndefined } from "../util/objects.js";

/**
 * What the kernel does to the cores beside the benchmark, as the machine exposes it (Linux
 * /sys and /proc; a VM often hides some): simultaneous multithreading, frequency boost, and
 * where interrupts go. Each one moves wall-clock figures between runs, so it is recorded with
 * the run and checked by `proxybench doctor`.
 */
export type Tuning = NonNullable<Environment["tuning"]>;

const SYS_CPU = "/sys/devices/system/cpu";

export async function readTuning(root = ""): Promise<Tuning> {
  const text = (file: string) =>
    readFile(root + file, "utf8").then(
      (t) => t.trim(),
      () => undefined,
    );
  const [smt, noTurbo, boost, affinity, irqbalance] = await Promise.all([
    text(`${SYS_CPU}/smt/control`),
    text(`${SYS_CPU}/intel_pstate/no_turbo`),
    text(`${SYS_CPU}/cpufreq/boost`),
    text("/proc/irq/default_smp_affinity"),
    processRuns("irqbalance", root),
  ]);
  return withoutUndefined({
    smt: smt || undefined,
    boost: parseBoost(noTurbo, boost),
    irqbalance,
    irqDefaultCores: (affinity === undefined ? undefined : coresOfMask(affinity)) || undefined,
  });
}

/** Boost from intel_pstate's no_turbo ("1" = off) or cpufreq's boost ("1" = on). Pure. */
export function parseBoost(noTurbo: string | undefined, boost: string | undefined): "on" | "off" | undefined {
  if (noTurbo === "0" || noTurbo === "1") return noTurbo === "1" ? "off" : "on";
  if (boost === "0" || boost === "1") return boost === "1" ? "on" : "off";
  return undefined;
}

/** A hexadecimal CPU mask ("3", "ff,ffffffff") as core ranges ("0-1"). Pure. */
export function coresOfMask(mask: string): string | undefined {
  const hex = mask.replace(/,/g, "");
  if (!/^[0-9a-f]+$/i.test(hex)) return undefined;
  const cores: number[] = [];
  const digits = [...hex].reverse();
  digits.forEach((digit, i) => {
    const bits = parseInt(digit, 16);
    for (let b = 0; b < 4; b++) if (bits & (1 << b)) cores.push(i * 4 + b);
  });
  return formatCores(cores, ",");
}

/** `0-2+5`: consecutive cores as ranges, joined by `separator` (`--cpus` joins with `+`). Pure. */
export function formatCores(cores: readonly number[], separator = "+"): string {
  const sorted = [...cores].sort((a, b) => a - b);
  const parts: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(separator);
}

/** Whether a process of that name runs (/proc/PID/comm); undefined without /proc. */
async function processRuns(name: string, root: string): Promise<boolean | undefined> {
  const entries = await readdir(`${root}/proc`).catch(() => undefined);
  if (!entries) return undefined;
  const comms = await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map((pid) => readFile(`${root}/proc/${pid}/comm`, "utf8").catch(() => "")),
  );
  return comms.some((comm) => comm.trim() === name);
}
