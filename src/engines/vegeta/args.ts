import { arrivalVus, refuseForeignLoad, requireRate } from "../load.js";
import { expandRequests } from "../requests.js";
import type { EngineInvocation } from "../types.js";

/** A response slower than this is a transport error (vegeta's `-timeout`). */
export const VEGETA_TIMEOUT_S = 10;
/** Workers vegeta starts with; it adds more, up to `maxWorkers`, when all are busy. */
const VEGETA_INITIAL_WORKERS = 10;
/** Bytes of each response body kept for the scenario's check, at least. */
const VEGETA_MIN_BODY_BYTES = 64 * 1024;

/**
 * Pure: the targets of one iteration, in order (vegeta round-robins over them, so the requests
 * of a scenario keep their sequence), as the lines of a `-format=json` targets file (vegeta's
 * JSON target format: one object per line, the body base64-encoded).
 */
export function buildVegetaTargets(inv: Pick<EngineInvocation, "scenario" | "baseUrl">): string {
  const base = inv.baseUrl.replace(/\/+$/, "");
  return expandRequests(inv.scenario)
    .map((r) => {
      const headers = Object.entries(r.headers);
      return JSON.stringify({
        method: r.method,
        url: base + r.path,
        ...(headers.length === 0 ? {} : { header: Object.fromEntries(headers.map(([n, v]) => [n, [v]])) }),
        ...(r.body === undefined ? {} : { body: Buffer.from(r.body).toString("base64") }),
      });
    })
    .join("\n")
    .concat("\n");
}

/** Requests per second vegeta is asked for: the load's iterations per second times the requests of one. */
export function vegetaRate(inv: Pick<EngineInvocation, "scenario" | "load">): number {
  refuseForeignLoad("vegeta", inv.load, "the open model only", "k6 or wrk");
  return requireRate(inv.load) * Math.max(1, expandRequests(inv.scenario).length);
}

/** Requests the attack is planned to send: vegeta's pacer sends rate x duration of them, on time or late. */
export function plannedRequests(rate: number, durationS: number): number {
  return Math.floor(rate * durationS);
}

/**
 * Pure: the `vegeta attack` command line. The worker pool is bounded like k6's VUs (the load's
 * `vus`, else one per request per second, capped): when every worker waits on a slow target,
 * vegeta sends late and falls short of the planned count, which shows as dropped requests.
 */
export function buildVegetaAttackArgs(input: {
  inv: Pick<EngineInvocation, "scenario" | "load" | "durationS">;
  targetsFile: string;
  resultsFile: string;
}): string[] {
  const { inv } = input;
  const rate = vegetaRate(inv);
  const maxWorkers = Math.max(1, inv.load.vus ?? arrivalVus({ ...inv.load, rate }));
  const bodyBytes = Math.max(VEGETA_MIN_BODY_BYTES, 2 * (inv.scenario.upstream.bodyBytes ?? 0));
  return [
    "attack",
    "-format=json",
    `-targets=${input.targetsFile}`,
    `-output=${input.resultsFile}`,
    `-rate=${vegetaRateFlag(rate)}`,
    `-duration=${Math.round(inv.durationS * 1000)}ms`,
    `-timeout=${VEGETA_TIMEOUT_S}s`,
    `-workers=${Math.min(VEGETA_INITIAL_WORKERS, maxWorkers)}`,
    `-max-workers=${maxWorkers}`,
    `-max-body=${bodyBytes}`,
    "-http2=false",
    "-keepalive=true",
    "-redirects=-1",
  ];
}

/** vegeta's `-rate` takes a whole number per period: a fractional rate is given per 1000 s. */
export function vegetaRateFlag(rate: number): string {
  return Number.isInteger(rate) ? `${rate}/1s` : `${Math.round(rate * 1000)}/1000s`;
}

/** Pure: `vegeta encode` turning the binary results into one JSON object per response. */
export function buildVegetaEncodeArgs(resultsFile: string, jsonFile: string): string[] {
  return ["encode", "-to=json", `-output=${jsonFile}`, resultsFile];
}
