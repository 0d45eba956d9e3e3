import type { Engine } from "../results/schema.js";
import { abEngine } from "./ab.js";
import { K6Engine } from "./k6/adapter.js";
import type { EngineAdapter } from "./types.js";
import { WrkEngine } from "./wrk/adapter.js";

export type * from "./types.js";
export { classifyRepetition, LOADGEN_SATURATION } from "./classify.js";
export { probe } from "./probe.js";
export { expandRequests, type ExpandedRequest } from "./requests.js";

/** Every engine's adapter; the type makes a new engine name fail to compile until it is here. */
const adapters: Record<Engine, () => EngineAdapter> = {
  k6: () => new K6Engine(),
  wrk: () => new WrkEngine(),
  ab: () => abEngine,
};
const cache = new Map<Engine, EngineAdapter>();

/**
 * The adapter for an engine name: one instance per engine for the whole process (k6's and wrk's
 * keep where `locate()` found their tool; ab's looks again on every run).
 */
export function getEngine(name: Engine): EngineAdapter {
  const cached = cache.get(name);
  if (cached) return cached;
  const adapter = adapters[name]();
  cache.set(name, adapter);
  return adapter;
}
