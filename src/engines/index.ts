import type { Engine } from "../results/schema.js";
import { abEngine } from "./ab.js";
import { H2loadEngine } from "./h2load/adapter.js";
import { K6Engine } from "./k6/adapter.js";
import type { ScenarioManifest } from "../manifests/schema.js";
import { probeGrpc } from "./grpc-health.js";
import { probe as probeHttp } from "./probe.js";
import { isGrpc } from "../results/protocols.js";
import type { EngineAdapter, ProbeResult } from "./types.js";
import { VegetaEngine } from "./vegeta/adapter.js";
import { WrkEngine } from "./wrk/adapter.js";

export type * from "./types.js";
export { classifyRepetition } from "./classify.js";
export { expandRequests, type ExpandedRequest } from "./requests.js";

/**
 * Every engine's adapter, one instance for the whole process (k6's, wrk's, vegeta's and
 * h2load's keep where `locate()` found their tool; ab's looks again on every run); the type
 * makes a new engine name fail to compile until it is here.
 */
const adapters: Record<Engine, EngineAdapter> = {
  k6: new K6Engine(),
  wrk: new WrkEngine(),
  ab: abEngine,
  vegeta: new VegetaEngine(),
  h2load: new H2loadEngine(),
};

/** The adapter for an engine name. */
export function getEngine(name: Engine): EngineAdapter {
  return adapters[name];
}

/**
 * The correctness probe of a target before the load: the scenario's requests (over HTTP/1.1,
 * h2c for an h2c scenario, HTTPS for a target over TLS), or for a gRPC scenario the standard
 * health check through the target (the calls' replies are checked during the load). `ca`: the
 * run's CA (PEM), for a target over TLS.
 */
export function probe(baseUrl: string, scenario: ScenarioManifest, ca?: string): Promise<ProbeResult> {
  return isGrpc(scenario.protocol) ? probeGrpc(baseUrl, ca) : probeHttp(baseUrl, scenario, ca);
}
