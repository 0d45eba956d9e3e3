import { describe, expect, it } from "vitest";
import {
  buildVegetaAttackArgs,
  buildVegetaTargets,
  plannedRequests,
  vegetaRate,
  vegetaRateFlag,
} from "../../../../src/engines/vegeta/args.js";
import type { Load } from "../../../../src/results/schema.js";
import { UserError } from "../../../../src/util/errors.js";
import { valuesScenario as scenario } from "../../../support/engines/vegeta/values-scenario.js";

const rate100: Load = { label: "100rps", model: "constant-arrival-rate", rate: 100 };

describe("vegeta command line and targets", () => {
  it("one JSON target per request of an iteration, headers as lists, body base64", () => {
    const s = scenario({
      requests: [
        { path: "/countries/{code}", vars: { code: ["us", "fr"] } },
        { method: "POST", path: "/echo", headers: { authorization: "Bearer t" }, body: "hi" },
      ],
    });
    const lines = buildVegetaTargets({ scenario: s, baseUrl: "http://127.0.0.1:8080/" })
      .trimEnd()
      .split("\n");
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { method: "GET", url: "http://127.0.0.1:8080/countries/us" },
      { method: "GET", url: "http://127.0.0.1:8080/countries/fr" },
      {
        method: "POST",
        url: "http://127.0.0.1:8080/echo",
        header: { authorization: ["Bearer t"] },
        body: "aGk=",
      },
    ]);
  });

  it.each([
    [{ rate: 100 }, 1, "-rate=100/1s", "-max-workers=100"],
    [{ rate: 100 }, 3, "-rate=300/1s", "-max-workers=300"],
    [{ rate: 2.5 }, 1, "-rate=2500/1000s", "-max-workers=3"],
    [{ rate: 100, vus: 4 }, 1, "-rate=100/1s", "-max-workers=4"],
  ])("load %j with %i request(s) per iteration: %s, %s", (load, perIteration, rateFlag, workers) => {
    const requests = Array.from({ length: perIteration }, (_, i) => ({ path: `/r${i}` }));
    const inv = { scenario: scenario({ requests }), load: { ...rate100, ...load }, durationS: 2.5 };
    const args = buildVegetaAttackArgs({ inv, targetsFile: "t.json", resultsFile: "r.bin" });
    expect(args).toContain(rateFlag);
    expect(args).toContain(workers);
    expect(args).toEqual(
      expect.arrayContaining(["attack", "-format=json", "-targets=t.json", "-output=r.bin"]),
    );
    expect(args).toContain("-duration=2500ms");
  });

  it("closed models are refused with the engines that run them", () => {
    const inv = { scenario: scenario(), load: { label: "v", model: "constant-vus", vus: 8 } as Load };
    expect(() => vegetaRate(inv)).toThrow(UserError);
    expect(() => vegetaRate(inv)).toThrow(/vegeta runs the open model only.*use --engine k6 or wrk/);
  });

  it("rate flag and planned count", () => {
    expect(vegetaRateFlag(100)).toBe("100/1s");
    expect(vegetaRateFlag(0.5)).toBe("500/1000s");
    expect(plannedRequests(100, 2)).toBe(200);
    expect(plannedRequests(3, 2.5)).toBe(7);
  });
});
