import type { ScenarioManifest } from "../manifests/schema.js";
import type { Engine } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import type { Classification, EngineAdapter, EngineMeasurement, ProbeResult } from "./types.js";

export type * from "./types.js";

/** The adapter for an engine name. */
export function getEngine(name: Engine): EngineAdapter {
  throw new UserError(`engine '${name}' is not available yet`);
}

export function classifyRepetition(_m: EngineMeasurement, _ctx: { loadgenCores: number }): Classification {
  throw new Error("not implemented yet");
}

export function probe(_baseUrl: string, _scenario: ScenarioManifest): Promise<ProbeResult> {
  return Promise.reject(new Error("not implemented yet"));
}
