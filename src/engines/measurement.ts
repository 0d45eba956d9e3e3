import { quantileSorted } from "simple-statistics";
import type { LatencyMs } from "../results/schema.js";
import type { EngineFigures, EngineMeasurement } from "./types.js";

/** A measurement with nothing measured (the engine failed before producing figures). */
export function emptyMeasurement(
  durationS: number,
): Omit<EngineMeasurement, "raw" | "exitCode" | "engineErrors"> {
  return {
    durationS,
    rps: 0,
    requests: 0,
    errors: 0,
    non2xx: 0,
    checkFailures: 0,
    statusCodes: {},
    droppedIterations: 0,
    latencyMs: { min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 },
  };
}

/**
 * A status key ("404", a class such as "4xx", a gRPC status name such as "UNAVAILABLE") that
 * is a response but not a success (2xx, gRPC "OK"); "0" is no response.
 */
export function isNon2xx(code: string): boolean {
  return code !== "0" && code !== "OK" && !code.startsWith("2");
}

/** The requests, transport errors ("0") and non-2xx responses of counts per status key. Pure. */
export function statusTotals(
  statusCodes: Record<string, number>,
): Pick<EngineFigures, "requests" | "errors" | "non2xx"> {
  let requests = 0;
  let non2xx = 0;
  for (const [code, n] of Object.entries(statusCodes)) {
    requests += n;
    if (isNon2xx(code)) non2xx += n;
  }
  return { requests, errors: statusCodes["0"] ?? 0, non2xx };
}

/** LatencyMs from its extremes, its mean and a reader of its percentiles (by percent). Pure. */
export function latencyMsOf(
  min: number,
  mean: number,
  max: number,
  at: (percent: string) => number,
): LatencyMs {
  return { min, mean, p50: at("50"), p90: at("90"), p95: at("95"), p99: at("99"), max };
}

/** Percentiles beyond LatencyMs that engines judging each response report (keyed by percent). */
const EXTRA_PERCENTILES = ["75", "99.9"] as const;

/** The latency figures of successful responses from their latencies in ms, in any order. Pure. */
export function latencyOf(
  latenciesMs: readonly number[],
): Pick<EngineFigures, "latencyMs" | "latencyPercentilesMs"> {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  if (sorted.length === 0) return { latencyMs: emptyMeasurement(0).latencyMs, latencyPercentilesMs: {} };
  const q = (percent: string) => quantileSorted(sorted, Number(percent) / 100);
  return {
    latencyMs: latencyMsOf(sorted[0]!, sorted.reduce((s, x) => s + x, 0) / sorted.length, sorted.at(-1)!, q),
    latencyPercentilesMs: Object.fromEntries(EXTRA_PERCENTILES.map((p) => [p, q(p)])),
  };
}
