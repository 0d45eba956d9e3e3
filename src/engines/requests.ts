import type { RequestSpec, ScenarioManifest } from "../manifests/schema.js";

/** One concrete request of a scenario iteration, after `{var}` expansion. */
export interface ExpandedRequest extends Pick<RequestSpec, "method" | "headers" | "body"> {
  path: string;
  /** The path template, used as the k6 `name` tag so that metrics are not split per value. */
  name: string;
}

/**
 * Expands each request over its `vars` (the cartesian product, in declaration order) and
 * returns the requests of one iteration in order. Pure.
 */
export function expandRequests(scenario: Pick<ScenarioManifest, "requests">): ExpandedRequest[] {
  return scenario.requests.flatMap((spec) => {
    let paths = [spec.path];
    for (const [key, values] of Object.entries(spec.vars)) {
      const token = `{${key}}`;
      paths = paths.flatMap((p) =>
        p.includes(token) ? values.map((v) => p.split(token).join(encodeURIComponent(v))) : [p],
      );
    }
    return paths.map((path) => ({
      method: spec.method,
      path,
      name: spec.path,
      headers: spec.headers,
      ...(spec.body === undefined ? {} : { body: spec.body }),
    }));
  });
}

/** Requests of one iteration: each request once per combination of its vars' values. Pure. */
export function requestsPerIteration(scenario: Pick<ScenarioManifest, "requests">): number {
  return scenario.requests.reduce(
    (n, r) => n + Object.values(r.vars).reduce((m, values) => m * values.length, 1),
    0,
  );
}
