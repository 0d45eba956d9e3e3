import type { Engine, Load, Protocol } from "../results/schema.js";
import { UserError } from "../util/errors.js";

/** The load models each engine can run: wrk and ab have no open model, vegeta only that. */
export const ENGINE_LOAD_MODELS: Readonly<Record<Engine, readonly Load["model"][]>> = {
  k6: ["constant-vus", "constant-arrival-rate", "max-throughput", "fixed-count"],
  wrk: ["constant-vus", "max-throughput"],
  ab: ["constant-vus", "max-throughput", "fixed-count"],
  vegeta: ["constant-arrival-rate"],
  h2load: ["constant-vus", "max-throughput"],
};

export function engineRunsLoad(engine: Engine, load: Pick<Load, "model">): boolean {
  return ENGINE_LOAD_MODELS[engine].includes(load.model);
}

/** Refuses, before anything starts, a load the engine cannot run: `runs` its models in words, `instead` the engines to use. */
export function refuseForeignLoad(engine: Engine, load: Load, runs: string, instead: string): void {
  if (engineRunsLoad(engine, load)) return;
  throw new UserError(
    `load '${load.label}': ${engine} runs ${runs} (${ENGINE_LOAD_MODELS[engine].join(", ")}), not ${load.model}; use --engine ${instead}`,
  );
}

/** The protocols each engine speaks to its target (k6: scenarios/lib/proxybench{,-grpc}.js). */
export const ENGINE_PROTOCOLS: Record<Engine, readonly Protocol[]> = {
  // over TLS, k6 negotiates HTTP/2 when the proxy offers it (ALPN): h2 is HTTP/2 over TLS
  k6: ["http1", "https", "h2", "grpc", "grpcs"],
  wrk: ["http1"],
  ab: ["http1"],
  vegeta: ["http1"],
  // HTTP/2 only: h2c with prior knowledge (http://), h2 by ALPN over TLS (https://)
  h2load: ["h2c", "h2"],
};

export function engineSpeaks(engine: Engine, protocol: Protocol): boolean {
  return ENGINE_PROTOCOLS[engine].includes(protocol);
}

/**
 * Whether an engine sends an arrival rate from a pool of senders fixed before the run (k6's
 * VUs, vegeta's workers), which the runner sizes from the warm-up's latency (littleLawVus).
 */
export const ENGINE_FIXED_SENDER_POOL: Readonly<Record<Engine, boolean>> = {
  k6: true,
  wrk: false,
  ab: false,
  vegeta: true,
  h2load: false,
};

/** Seconds of a run for an engine that takes whole ones (wrk, h2load, ab's timed runs), at least one. */
export function wholeSeconds(durationS: number): number {
  return Math.max(1, Math.round(durationS));
}

/** Closed-model concurrency used when a load names neither `vus` nor `connections`. */
const DEFAULT_CONCURRENCY = 64;
/** Upper bound of the VUs k6 pre-allocates for an arrival-rate load that does not name `vus`. */
const MAX_DEFAULT_ARRIVAL_VUS = 1000;

/** Concurrency of a closed-model load: `vus`, else `connections`, else the default. */
export function concurrency(load: Load): number {
  return load.vus ?? load.connections ?? DEFAULT_CONCURRENCY;
}

/**
 * VUs for an open-model (constant-arrival-rate) load: `vus` when given, else one per iteration
 * per second (enough for iterations up to 1 s long), capped. k6 pre-allocates them all and never
 * grows the pool during the run, so a load that needs more shows as dropped iterations rather
 * than as a pause while VUs are created.
 */
export function arrivalVus(load: Load): number {
  if (load.vus !== undefined) return load.vus;
  return Math.min(MAX_DEFAULT_ARRIVAL_VUS, Math.max(1, Math.ceil(requireRate(load))));
}

export function requireRate(load: Load): number {
  if (load.rate === undefined) {
    throw new UserError(`load '${load.label}': model ${load.model} needs 'rate' (iterations per second)`);
  }
  return load.rate;
}

/** Headroom over Little's law for the VU pool of an arrival rate: bursts and k6's own delays. */
const VU_HEADROOM = 2;

/**
 * VUs an arrival-rate load needs so the pool does not run out (Little's law: in flight = rate x
 * time per iteration), from the latency seen in the warm-up: p99 per request times the
 * requests per iteration, doubled. Never fewer than the load's own. Pure.
 */
export function littleLawVus(load: Load, p99Ms: number, requestsPerIteration: number): number {
  const own = arrivalVus(load);
  if (load.model !== "constant-arrival-rate" || !(p99Ms > 0)) return own;
  const inFlight = requireRate(load) * (p99Ms / 1000) * Math.max(1, requestsPerIteration);
  return Math.max(own, Math.ceil(inFlight * VU_HEADROOM));
}

/**
 * Threads and connections of a closed-model engine (wrk, h2load): one thread per load-generator
 * core, at least one connection per thread. Open-model loads are refused, pointing to k6.
 */
export function closedShape(
  engine: "wrk" | "h2load",
  load: Load,
  loadgenCores: number,
): { threads: number; connections: number } {
  refuseForeignLoad(engine, load, "closed-model loads only", "k6");
  const threads = Math.max(1, loadgenCores);
  return { threads, connections: Math.max(threads, load.connections ?? concurrency(load)) };
}
