import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { UserError } from "../../util/errors.js";
import { latencyOf, statusTotals } from "../measurement.js";
import type { EngineFigures } from "../types.js";

/**
 * h2load's output: its per-request log (`--log-file`: start time in µs, HTTP status or -1 for a
 * failed stream, µs until the end of the response; tab separated) and the `finished in` line of
 * its summary. The latencies are those of 2xx responses; every other status is counted.
 */

/** `finished in 5.00s, 1234.56 req/s, ...` -> 5 (seconds); undefined when absent. Pure. */
export function parseFinishedS(summary: string): number | undefined {
  const m = /finished in ([0-9.]+)(ms|s)\b/.exec(summary);
  if (!m) return undefined;
  const value = Number(m[1]);
  return m[2] === "ms" ? value / 1000 : value;
}

/** The figures of a log, over `durationS`; a malformed line names the file and line. */
export async function readH2loadLog(file: string, durationS: number): Promise<EngineFigures> {
  const statusCodes: Record<string, number> = {};
  const latenciesMs: number[] = [];
  let n = 0;
  const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
  for await (const line of lines) {
    n++;
    if (line.trim() === "") continue;
    const [, status, micros] = line.split("\t");
    const code = Number(status);
    const us = Number(micros);
    if (!Number.isInteger(code) || !Number.isFinite(us)) {
      throw new UserError(
        `${file}:${n}: not an h2load log line (start, status, microseconds): ${line.slice(0, 80)}`,
      );
    }
    const key = code < 0 ? "0" : String(code);
    statusCodes[key] = (statusCodes[key] ?? 0) + 1;
    if (key.startsWith("2")) latenciesMs.push(us / 1000);
  }
  return {
    durationS,
    rps: durationS > 0 ? latenciesMs.length / durationS : 0,
    ...statusTotals(statusCodes),
    // h2load reads no bodies: the probe checks them before the load, as for wrk
    checkFailures: 0,
    statusCodes,
    droppedIterations: 0,
    ...latencyOf(latenciesMs),
  };
}
