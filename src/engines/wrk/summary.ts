import { z } from "zod";
import { checkedBySchema, UserError } from "../../util/errors.js";
import { latencyMsOf } from "../measurement.js";
import type { EngineFigures } from "../types.js";

const Count = z.number().int().nonnegative();
const Us = z.number().nonnegative();

/** The JSON scenarios/lib/wrk.lua writes from wrk's done() hook (times in microseconds). */
const WrkSummary = z.object({
  requests: Count,
  duration_us: z.number().int().positive(),
  bytes: Count,
  errors: z.object({ connect: Count, read: Count, write: Count, status: Count, timeout: Count }),
  latency_us: z.object({ min: Us, mean: Us, max: Us, stdev: Us, percentiles: z.record(z.string(), Us) }),
});

/** Measured from wrk's done() JSON (it always reports the bytes it read). */
export type WrkFigures = EngineFigures & { bytesReceived: number };

function percentile(percentiles: Record<string, number>, key: string, file: string): number {
  const value = percentiles[key];
  if (value === undefined) throw new UserError(`${file}: latency_us.percentiles.${key}: missing`);
  return value;
}

/**
 * Pure: wrk's summary -> figures. wrk counts a response as a status error when its status is
 * 400 or more (so 3xx pass) and records the latency of every response, whatever its status:
 * the latency is that of successful responses only when there is no status error, which is the
 * only case where a repetition is valid. Transport errors (connect, read, write, timeout) have
 * no latency sample. wrk reports no per-code counts: statusCodes holds "0" (transport errors) only.
 */
export function normaliseWrkSummary(json: unknown, file: string): WrkFigures {
  const s = checkedBySchema(WrkSummary, json, file);
  const durationS = s.duration_us / 1e6;
  const transport = s.errors.connect + s.errors.read + s.errors.write + s.errors.timeout;
  const ok = Math.max(0, s.requests - s.errors.status);
  const ms = (us: number) => (s.requests > 0 ? us / 1000 : 0);
  const percentiles = s.requests > 0 ? Object.entries(s.latency_us.percentiles) : [];
  return {
    durationS,
    rps: ok / durationS,
    requests: s.requests + transport,
    errors: transport,
    non2xx: s.errors.status,
    checkFailures: 0,
    statusCodes: transport > 0 ? { "0": transport } : {},
    droppedIterations: 0,
    bytesReceived: s.bytes,
    latencyMs: latencyMsOf(ms(s.latency_us.min), ms(s.latency_us.mean), ms(s.latency_us.max), (p) =>
      ms(percentile(s.latency_us.percentiles, p, file)),
    ),
    latencyPercentilesMs: Object.fromEntries(percentiles.map(([p, us]) => [p, us / 1000])),
  };
}
