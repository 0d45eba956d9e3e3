import { describe, expect, it } from "vitest";
import { responseProblems } from "../../../src/engines/probe.js";
import { effectProblems, lowerCaseHeaders } from "../../../src/engines/response-effects.js";
import { ScenarioManifest } from "../../../src/manifests/schema.js";

function check(extra: Record<string, unknown>): ScenarioManifest["check"] {
  return ScenarioManifest.parse({
    name: "s",
    description: "d",
    requests: [{ path: "/echo/headers" }],
    check: { status: [200], ...extra },
    loads: [{ label: "l", model: "constant-arrival-rate", rate: 1 }],
  }).check;
}

const guids = Array.from({ length: 10 }, (_, i) => `0b9c6f1e-1f2a-4c3d-8e4f-${String(i).padStart(12, "0")}`);

describe("effect checks: the work a proxy did, seen on the response", () => {
  it("a response header with exactly the value, in any case of name", () => {
    const c = check({ headers: { "X-Source": "config" } });
    expect(effectProblems(c, lowerCaseHeaders({ "X-Source": ["config"] }), "")).toEqual([]);
    expect(effectProblems(c, lowerCaseHeaders({ "x-source": "njs" }), "")).toEqual([
      'response header X-Source: "njs" (expected "config")',
    ]);
    expect(effectProblems(c, {}, "")).toEqual(['response header X-Source: missing (expected "config")']);
  });

  it("10 distinct GUIDs: the same GUID ten times is one", () => {
    const c = check({ distinctGuidHeaders: 10 });
    const ten = Object.fromEntries(guids.map((g, i) => [`x-guid-${i + 1}`, [g]]));
    expect(effectProblems(c, ten, "")).toEqual([]);
    const same = Object.fromEntries(guids.map((_g, i) => [`x-guid-${i + 1}`, [guids[0] ?? ""]]));
    expect(effectProblems(c, same, "")).toEqual(["1 distinct GUID headers (expected at least 10)"]);
    const notGuids = Object.fromEntries(guids.map((_g, i) => [`x-guid-${i + 1}`, [`id-${i}`]]));
    expect(effectProblems(c, notGuids, "")).toEqual(["0 distinct GUID headers (expected at least 10)"]);
  });

  it("what the upstream saw: fields of its /echo/headers body", () => {
    const c = check({ bodyJson: { source: "go", "apollographql-client-name": "web" } });
    expect(effectProblems(c, {}, '{"source":"go","apollographql-client-name":"web","host":"x"}')).toEqual([]);
    expect(effectProblems(c, {}, '{"host":"x","source":"config"}')).toEqual([
      'upstream saw source: "config" (expected "go")',
      'upstream saw apollographql-client-name: nothing (expected "web")',
    ]);
    expect(effectProblems(c, {}, "<html>")[0]).toMatch(/^body is not JSON/);
  });

  it("what the subgraph saw through a GraphQL gateway: a dotted path into the answer", () => {
    const c = check({ bodyJson: { "data.source": "go" } });
    expect(effectProblems(c, {}, '{"data":{"products":[],"source":"go"}}')).toEqual([]);
    expect(effectProblems(c, {}, '{"data":{"source":null}}')).toEqual([
      'upstream saw data.source: nothing (expected "go")',
    ]);
    expect(effectProblems(c, {}, '{"errors":[{"message":"x"}]}')).toEqual([
      'upstream saw data.source: nothing (expected "go")',
    ]);
  });

  it("the probe's response check applies them after status and body", () => {
    const s = ScenarioManifest.parse({
      name: "s",
      description: "d",
      requests: [{ path: "/echo/headers" }],
      check: { status: [200], bodyJson: { source: "config" } },
      loads: [{ label: "l", model: "constant-arrival-rate", rate: 1 }],
    });
    const res = (body: string, status = 200) => ({
      status,
      contentType: "application/json",
      body: Buffer.from(body),
      headers: {},
    });
    expect(responseProblems(s, "GET", res('{"source":"config"}'))).toEqual([]);
    expect(responseProblems(s, "GET", res("{}"))).toEqual([
      'upstream saw source: nothing (expected "config")',
    ]);
    expect(responseProblems(s, "GET", res("{}", 401))[0]).toMatch(/^401 \(expected 200\)/);
  });
});
