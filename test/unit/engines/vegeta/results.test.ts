import path from "node:path";
import { describe, expect, it } from "vitest";
import { classifyRepetition } from "../../../../src/engines/classify.js";
import type { EngineMeasurement } from "../../../../src/engines/types.js";
import {
  scenarioCheck,
  tallyVegetaResults,
  VegetaTally,
  type VegetaResult,
} from "../../../../src/engines/vegeta/results.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";
import { valuesScenario as scenario } from "../../../support/engines/vegeta/values-scenario.js";

const FIXTURES = path.join(PROJECT_ROOT, "test", "fixtures", "vegeta");

function result(over: Partial<VegetaResult>): VegetaResult {
  return {
    code: 200,
    timestamp: "2026-01-01T10:00:00.000Z",
    latency: 1_000_000,
    bytes_in: 19,
    error: "",
    body: Buffer.from('["value1","value2"]').toString("base64"),
    method: "GET",
    headers: { "Content-Type": ["application/json"] },
    ...over,
  };
}

describe("vegeta responses judged one by one", () => {
  it("latency of successful responses only; errors, non-2xx and failed checks counted apart", () => {
    const tally = new VegetaTally(scenarioCheck(scenario()));
    for (let i = 0; i < 10; i++) {
      tally.add(
        result({
          timestamp: `2026-01-01T10:00:00.${String(i * 100).padStart(3, "0")}Z`,
          latency: (i + 1) * 1e6,
        }),
      );
    }
    tally.add(result({ code: 0, error: "connection refused", latency: 900e6, body: null }));
    tally.add(result({ code: 502, latency: 800e6 }));
    tally.add(result({ body: Buffer.from("<html>").toString("base64"), latency: 700e6 }));
    const f = tally.figures(14);
    expect(f).toMatchObject({ requests: 13, errors: 1, non2xx: 1, checkFailures: 1, droppedIterations: 1 });
    expect(f.statusCodes).toEqual({ "200": 11, "0": 1, "502": 1 });
    expect(f.latencyMs.min).toBe(1);
    expect(f.latencyMs.max).toBe(10);
    expect(f.latencyMs.mean).toBeCloseTo(5.5);
    expect(f.latencyMs.p50).toBeGreaterThanOrEqual(5);
    expect(f.latencyMs.p50).toBeLessThanOrEqual(6);
    expect(f.durationS).toBeCloseTo(0.91, 2); // first start to last end (900 ms + 10 ms)
    expect(tally.checkProblems()[0]).toMatch(/body "<html>"/);
  });

  it("an extra check fails a response that passed the scenario's check, with its reason", () => {
    const needsHeader = (r: { headers: Record<string, string[]> }) =>
      r.headers["X-Source"] ? [] : ["no X-Source header"];
    const tally = new VegetaTally((r) => [...scenarioCheck(scenario())(r), ...needsHeader(r)]);
    tally.add(result({}));
    tally.add(result({ headers: { "Content-Type": ["application/json"], "X-Source": ["config"] } }));
    const f = tally.figures(2);
    expect(f.checkFailures).toBe(1);
    const m: EngineMeasurement = {
      ...f,
      raw: [],
      exitCode: 0,
      engineErrors: [],
      checkProblems: tally.checkProblems(),
    };
    const c = classifyRepetition(m, { loadgenCores: 1 });
    expect(c.status).toBe("invalid");
    expect(c.reasons.join(" ")).toContain("no X-Source header");
  });

  it("fewer requests sent than planned: loadgen-bound", () => {
    const tally = new VegetaTally(() => []);
    for (let i = 0; i < 90; i++) tally.add(result({}));
    const m: EngineMeasurement = { ...tally.figures(100), raw: [], exitCode: 0, engineErrors: [] };
    expect(classifyRepetition(m, { loadgenCores: 1 })).toMatchObject({ status: "loadgen-bound" });
  });

  it("reads real `vegeta encode -to=json` output; a malformed line names file and line", async () => {
    const tally = new VegetaTally(scenarioCheck(scenario()));
    await tallyVegetaResults(path.join(FIXTURES, "clean.jsonl"), tally);
    const f = tally.figures(20);
    expect(f).toMatchObject({ requests: 20, errors: 0, non2xx: 0, checkFailures: 0, droppedIterations: 0 });
    expect(f.latencyMs.p99).toBeGreaterThan(0);
    const refused = new VegetaTally(scenarioCheck(scenario()));
    await tallyVegetaResults(path.join(FIXTURES, "refused.jsonl"), refused);
    expect(refused.figures(10)).toMatchObject({ requests: 10, errors: 10, statusCodes: { "0": 10 } });
    await expect(
      tallyVegetaResults(path.join(FIXTURES, "malformed.jsonl"), new VegetaTally(() => [])),
    ).rejects.toThrow(/malformed\.jsonl:2: /);
  });
});
