import type { Engine } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { abEngine } from "./ab.js";
import { K6Engine } from "./k6/adapter.js";
import type { EngineAdapter } from "./types.js";
import { VegetaEngine } from "./vegeta/adapter.js";
import { WrkEngine } from "./wrk/adapter.js";

export type * from "./types.js";
export { classifyRepetition, LOADGEN_SATURATION } from "./classify.js";
export { probe } from "./probe.js";
export { expandRequests, type ExpandedRequest } from "./requests.js";

const adapters: Partial<Record<Engine, () => EngineAdapter>> = {
  k6: () => new K6Engine(),
  wrk: () => new WrkEngine(),
  ab: () => abEngine,
  vegeta: () => new VegetaEngine(),
};
const cache = new Map<Engine, EngineAdapter>();

/** The adapter for an engine name (one instance per engine, so `locate()` runs once). */
export function getEngine(name: Engine): EngineAdapter {
  const cached = cache.get(name);
  if (cached) return cached;
  const make = adapters[name];
  if (!make) {
    const known = Object.keys(adapters).join(", ");
    throw new UserError(`engine '${name}' is not available yet (available: ${known})`);
  }
  const adapter = make();
  cache.set(name, adapter);
  return adapter;
}
