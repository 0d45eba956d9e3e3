import { ScenarioManifest } from "../../../src/manifests/schema.js";
import type { Load } from "../../../src/results/schema.js";

/** A valid scenario manifest with the given fields replaced. */
export function scenario(overrides: Record<string, unknown> = {}): ScenarioManifest {
  return ScenarioManifest.parse({
    name: "passthrough",
    description: "test",
    requests: [{ path: "/api/values" }],
    upstream: { contentType: "application/json", bodyBytes: 19 },
    check: { status: [200], contentType: "application/json", bodyEquals: '["value1","value2"]' },
    loads: [{ label: "default", model: "constant-vus", vus: 32, durationS: 5, warmupS: 2 }],
    ...overrides,
  });
}

export function load(overrides: Partial<Load> = {}): Load {
  return { label: "default", model: "constant-vus", vus: 32, ...overrides };
}
