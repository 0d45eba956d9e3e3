import { ScenarioManifest } from "../../../../src/manifests/schema.js";

/** The vegeta tests' scenario: GET /api/values, the 19-byte body checked, 100 requests/s. */
export function valuesScenario(extra: Record<string, unknown> = {}): ScenarioManifest {
  return ScenarioManifest.parse({
    name: "values",
    description: "the 19-byte body",
    requests: [{ path: "/api/values" }],
    check: { status: [200], bodyEquals: '["value1","value2"]' },
    loads: [{ label: "100rps", model: "constant-arrival-rate", rate: 100 }],
    ...extra,
  });
}
