import { describe, expect, it } from "vitest";
import {
  buildK6Args,
  buildK6Config,
  buildK6Env,
  K6_GOGC,
  k6DurationS,
  k6GoRuntimeEnv,
  k6Load,
} from "../../../../src/engines/k6/config.js";
import type { EngineInvocation } from "../../../../src/engines/types.js";
import { UserError } from "../../../../src/util/errors.js";
import { load, scenario } from "../../../support/engines/manifests.js";

function invocation(overrides: Partial<EngineInvocation> = {}): EngineInvocation {
  return {
    scenario: scenario(),
    scenarioDir: "/p/scenarios/passthrough",
    load: load(),
    durationS: 5,
    baseUrl: "http://127.0.0.1:8080/",
    cpus: [0],
    outDir: "/out",
    fileStem: "rep-0",
    ...overrides,
  };
}

describe("k6Load", () => {
  const cases = [
    { name: "constant-vus", load: load({ vus: 10 }), expected: { model: "constant-vus", vus: 10 } },
    {
      name: "constant-vus from connections",
      load: load({ vus: undefined, connections: 7 }),
      expected: { model: "constant-vus", vus: 7 },
    },
    {
      name: "constant-vus default",
      load: load({ vus: undefined }),
      expected: { model: "constant-vus", vus: 64 },
    },
    {
      name: "max-throughput is a closed model for k6",
      load: load({ model: "max-throughput", vus: undefined, connections: 256 }),
      expected: { model: "constant-vus", vus: 256 },
    },
    {
      name: "arrival rate with vus: a fixed pool",
      load: load({ model: "constant-arrival-rate", rate: 500, vus: 20 }),
      expected: { model: "constant-arrival-rate", rate: 500, preAllocatedVUs: 20, maxVUs: 20 },
    },
    {
      name: "arrival rate without vus: one VU per iteration per second",
      load: load({ model: "constant-arrival-rate", rate: 250, vus: undefined }),
      expected: { model: "constant-arrival-rate", rate: 250, preAllocatedVUs: 250, maxVUs: 250 },
    },
    {
      name: "arrival rate without vus: capped",
      load: load({ model: "constant-arrival-rate", rate: 50_000, vus: undefined }),
      expected: { model: "constant-arrival-rate", rate: 50_000, preAllocatedVUs: 1000, maxVUs: 1000 },
    },
    {
      name: "fixed count: iterations from requests per iteration",
      load: load({ model: "fixed-count", requests: 20_000, vus: 1000 }),
      expected: { model: "fixed-count", vus: 1000, iterations: 20_000 },
    },
  ];
  it.each(cases)("$name", ({ load: l, expected }) => {
    expect(k6Load({ load: l, scenario: scenario() })).toEqual(expected);
  });

  it("divides a fixed count by the requests of an iteration", () => {
    const s = scenario({ requests: [{ path: "/c/{x}", vars: { x: ["a", "b", "c", "d", "e"] } }] });
    expect(k6Load({ load: load({ model: "fixed-count", requests: 12, vus: 2 }), scenario: s })).toEqual({
      model: "fixed-count",
      vus: 2,
      iterations: 3,
    });
  });

  it.each([
    [
      "constant-arrival-rate without rate",
      load({ model: "constant-arrival-rate" }),
      /load 'default'.*needs 'rate'/,
    ],
    ["fixed-count without requests", load({ model: "fixed-count" }), /load 'default'.*needs 'requests'/],
  ])("rejects %s, naming the load and the field", (_name, l, message) => {
    expect(() => k6Load({ load: l, scenario: scenario() })).toThrow(UserError);
    expect(() => k6Load({ load: l, scenario: scenario() })).toThrow(message);
  });
});

describe("k6DurationS", () => {
  it.each([
    [0.2, 1],
    [1, 1],
    [2.5, 2.5],
    [30, 30],
  ])("%s s -> %s s (k6 scenarios last at least 1 s)", (given, expected) => {
    expect(k6DurationS(given)).toBe(expected);
    expect(buildK6Config(invocation({ durationS: given }), "/x.json").durationS).toBe(expected);
  });
});

describe("buildK6Args", () => {
  it("runs the script quietly, without the REST API, colours or usage report", () => {
    expect(buildK6Args("/p/scenarios/passthrough/script.js")).toEqual([
      "run",
      "--quiet",
      "--no-color",
      "--no-usage-report",
      "--address",
      "",
      "/p/scenarios/passthrough/script.js",
    ]);
  });
});

describe("buildK6Config and buildK6Env", () => {
  it("a gRPC scenario's descriptor set is passed by its absolute path", () => {
    const s = scenario({ protocol: "grpc", protoset: "pingpong.protoset" });
    const config = buildK6Config(invocation({ scenario: s }), "/out/rep-0.k6.json");
    expect(config).toMatchObject({
      protocol: "grpc",
      protoset: "/p/scenarios/passthrough/pingpong.protoset",
    });
  });

  it("carries the expanded requests, the check, the load and the window", () => {
    const s = scenario({
      name: "json-lookup",
      requests: [{ path: "/countries/{code}", vars: { code: ["us", "fr"] } }],
      check: { status: [200], bodyContains: '"name"' },
    });
    const config = buildK6Config(invocation({ scenario: s, durationS: 2 }), "/out/rep-0.k6.json");
    expect(config).toEqual({
      baseUrl: "http://127.0.0.1:8080",
      protocol: "http1",
      scenario: "json-lookup",
      requests: [
        { method: "GET", path: "/countries/us", name: "/countries/{code}", headers: {} },
        { method: "GET", path: "/countries/fr", name: "/countries/{code}", headers: {} },
      ],
      check: { status: [200], bodyContains: '"name"' },
      load: { model: "constant-vus", vus: 32 },
      durationS: 2,
      summaryFile: "/out/rep-0.k6.json",
      failFast: true,
    });
    const env = buildK6Env(config);
    expect(JSON.parse(env.PROXYBENCH_CONFIG!)).toEqual(config);
    expect(env.K6_NO_USAGE_REPORT).toBe("true");
    expect(env.K6_CLOUD_TOKEN).toBe("");
    expect(env.GOGC).toBeUndefined();
  });

  it("k6's garbage collector: GOGC 400 and a quarter of the memory as its limit, unless the user set them", () => {
    const gib = 2 ** 30;
    expect(k6GoRuntimeEnv(8 * gib, {})).toEqual({ GOGC: K6_GOGC, GOMEMLIMIT: "2048MiB" });
    expect(K6_GOGC).toBe("400");
    expect(k6GoRuntimeEnv(8 * gib, { GOGC: "100", GOMEMLIMIT: "1GiB" })).toEqual({
      GOGC: "100",
      GOMEMLIMIT: "1GiB",
    });
    expect(k6GoRuntimeEnv(100 * 2 ** 20, {}).GOMEMLIMIT).toBe("64MiB");
    const config = buildK6Config(invocation(), "/out/rep-0.k6.json");
    expect(buildK6Env(config, undefined, k6GoRuntimeEnv(8 * gib, {}))).toMatchObject({ GOGC: "400" });
  });
});
