import type { EngineMeasurement } from "./types.js";

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
