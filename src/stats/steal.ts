import { median } from "simple-statistics";

/**
 * The hypervisor's steal, named and not fatal. Steal does not make a repetition noisy (measuring
 * it again does not help on a machine whose host is busy all along): it is recorded per
 * repetition, and a round where either side's steal is above the noise limit is left out of the
 * tests of the metrics that hold stolen time. Latency and requests/sec hold it: a request in
 * flight while the vCPU is not running waits for it. CPU per request holds it only where the
 * kernel counts stolen time as the task's (`bench:steal`, src/environment/steal-accounting.ts);
 * peak memory never does. Pure.
 */

/** What a run's kernel does with stolen time (results.json's environment.stealAccounting). */
export type StealAccounting = "excluded" | "included" | "unknown";

/** Other processes' CPU (and, for the metrics that hold it, steal) above this many cores is noise. */
export const DEFAULT_NOISE_LIMIT = 0.05;

export interface StealRule {
  /** Cores of steal above which a repetition's figures that hold stolen time are left out. */
  limit: number;
  accounting: StealAccounting;
}

/** The rule a run recorded: its noise limit and its kernel's accounting (unknown for older runs). */
export function stealRuleOf(results: {
  settings: { noiseLimit?: number | undefined };
  environment: { stealAccounting?: StealAccounting | undefined };
}): StealRule {
  return {
    limit: results.settings.noiseLimit ?? DEFAULT_NOISE_LIMIT,
    accounting: results.environment.stealAccounting ?? "unknown",
  };
}

/** Whether a metric's figures hold the time the hypervisor stole (CompareMetric names). */
export function holdsSteal(metric: string, accounting: StealAccounting): boolean {
  if (metric === "peakMemory") return false;
  if (metric === "cpuPerRequest") return accounting !== "excluded";
  return true; // rps, mean, p50, p99: wall-clock figures
}

/** A repetition's recorded steal, in cores (0 where it was not measured). */
export function stealOf(r: { noise?: { steal: number } | undefined }): number {
  return r.noise?.steal ?? 0;
}

/**
 * The steal of these cells' repetitions, to be named in a report: its median and range
 * (`0.21 core (0.13-0.54)`), over how many repetitions, and what CPU per request makes of it.
 * Undefined when no repetition had more than the limit (under it, steal is as quiet as other CPU).
 */
export function stealToName(
  cells: ReadonlyArray<{ repetitions: ReadonlyArray<{ noise?: { steal: number } | undefined }> }>,
  rule: StealRule,
): { range: string; repetitions: number; cpu: string } | undefined {
  const steals = cells.flatMap((c) => c.repetitions.map(stealOf));
  if (!steals.some((s) => s > rule.limit)) return undefined;
  return {
    range: describeStealRange(steals),
    repetitions: steals.length,
    cpu: cpuStealWords(rule.accounting),
  };
}

/** `0.21 core (0.13-0.54)`: the median of some steal figures, with their range when it has one. */
export function describeStealRange(steals: readonly number[]): string {
  const low = Math.min(...steals);
  const high = Math.max(...steals);
  const range = low === high ? "" : ` (${low.toFixed(2)}-${high.toFixed(2)})`;
  return `${median([...steals]).toFixed(2)} core${range}`;
}

/** Why the proxy's CPU per request does or does not hold stolen time, in a few words. */
function cpuStealWords(accounting: StealAccounting): string {
  if (accounting === "excluded")
    return "CPU per request leaves it out (the kernel takes stolen time off the proxy's run time: CONFIG_PARAVIRT_TIME_ACCOUNTING)";
  if (accounting === "included")
    return "CPU per request holds it too (this kernel counts stolen time as the task's: no CONFIG_PARAVIRT_TIME_ACCOUNTING, or no-steal-acc)";
  return "CPU per request is taken to hold it too (the kernel's steal accounting is unknown)";
}
