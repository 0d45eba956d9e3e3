import { plural } from "../render/format.js";
import { worstStatus, type CellStatus } from "../results/schema.js";
import { isNon2xx } from "./measurement.js";
import type { Classification, EngineMeasurement } from "./types.js";

/** Share of its cores above which a load generator is taken as saturated. */
const LOADGEN_SATURATION = 0.9;

/** "404: 120, 502: 3" for the codes that are neither 2xx nor transport errors. */
function non2xxCodes(statusCodes: Record<string, number>): string {
  return Object.entries(statusCodes)
    .filter(([code]) => isNon2xx(code))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, n]) => `${code}: ${n}`)
    .join(", ");
}

/**
 * Pure: the status of one repetition and the reasons for it, worst status first.
 * - failed: the engine errored (non-zero exit other than 99, thresholds), or nothing was measured;
 * - invalid: any non-2xx response, failed check or transport error;
 * - loadgen-bound: the load generator used >= 90% of its cores, or its cores were >= 90% busy
 *   (other processes competing for them), or it dropped iterations.
 */
export function classifyRepetition(m: EngineMeasurement, ctx: { loadgenCores: number }): Classification {
  const byStatus: Array<[CellStatus, string[]]> = [
    ["failed", engineFailures(m)],
    ["invalid", wrongResponses(m)],
    ["loadgen-bound", loadgenLimits(m, ctx.loadgenCores)],
  ];
  const found = byStatus.filter(([, why]) => why.length > 0);
  return { status: worstStatus(found.map(([status]) => status)), reasons: found.flatMap(([, why]) => why) };
}

/** failed: the engine errored or exited badly, or nothing completed. */
function engineFailures(m: EngineMeasurement): string[] {
  const reasons = [...m.engineErrors];
  if (m.engineErrors.length === 0 && m.exitCode !== 0 && m.exitCode !== 99) {
    reasons.push(
      m.exitCode === null
        ? "the load generator was killed by a signal"
        : `the load generator exited with code ${m.exitCode}`,
    );
  }
  if (m.requests === 0) reasons.push("no request completed");
  return reasons;
}

/** invalid: non-2xx responses (gRPC calls not OK), failed checks, transport errors. */
function wrongResponses(m: EngineMeasurement): string[] {
  const found: string[] = [];
  // gRPC cells count calls by status name ("OK", "UNAVAILABLE"), HTTP cells by number.
  const grpc = Object.keys(m.statusCodes).some((code) => /^[A-Z]/.test(code));
  if (m.non2xx > 0) {
    const codes = non2xxCodes(m.statusCodes);
    const what = grpc ? `${plural(m.non2xx, "gRPC call")} not OK` : plural(m.non2xx, "non-2xx response");
    found.push(`${what} of ${m.requests}${codes ? ` (${codes})` : ""}`);
  }
  if (m.checkFailures > 0) {
    found.push(
      grpc
        ? `${plural(m.checkFailures, "OK gRPC call")} with a reply that failed the scenario's check`
        : `${plural(m.checkFailures, "2xx response")} failed the scenario's check${
            m.checkProblems?.length ? ` (${m.checkProblems.join("; ")})` : ""
          }`,
    );
  }
  if (m.errors > 0) {
    found.push(`${plural(m.errors, "transport error")} (connection refused, reset or timed out)`);
  }
  return found;
}

/** loadgen-bound: the load generator's process or cores saturated, or iterations dropped. */
function loadgenLimits(m: EngineMeasurement, loadgenCores: number): string[] {
  const found: string[] = [];
  const cores = Math.max(1, loadgenCores);
  if (m.loadgenCpu !== undefined && m.loadgenCpu >= LOADGEN_SATURATION * cores) {
    found.push(
      `the load generator used ${m.loadgenCpu.toFixed(2)} of its ${plural(cores, "core")} (${LOADGEN_SATURATION * 100}% or more): the figures are its limit, not the target's`,
    );
  }
  // Pinned cores busy beyond the load generator's own share: the kernel's network work for its
  // requests (softirq time is not charged to the process) or other processes. Either way it
  // could not get more CPU.
  else if (m.loadgenCoresBusy !== undefined && m.loadgenCoresBusy >= LOADGEN_SATURATION * cores) {
    const which = cores === 1 ? "core was" : `${cores} cores were`;
    const percent = Math.round((m.loadgenCoresBusy / cores) * 100);
    const own =
      m.loadgenCpu === undefined
        ? ""
        : `, ${m.loadgenCpu.toFixed(2)} core by the load generator's process, the rest by the kernel's network work or other processes`;
    found.push(
      `the load generator's ${which} ${percent}% busy${own}: the figures are its limit, not the target's`,
    );
  }
  if (m.droppedIterations > 0) {
    found.push(
      `${plural(m.droppedIterations, "iteration")} dropped: the load generator could not hold the arrival rate`,
    );
  }
  return found;
}
