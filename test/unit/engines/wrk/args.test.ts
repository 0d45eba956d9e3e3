import { describe, expect, it } from "vitest";
import { buildWrkArgs, buildWrkEnv, luaRequests, luaString } from "../../../../src/engines/wrk/args.js";
import type { EngineInvocation } from "../../../../src/engines/types.js";
import { UserError } from "../../../../src/util/errors.js";
import { load, scenario } from "../../../support/engines/manifests.js";

function invocation(overrides: Partial<EngineInvocation> = {}): EngineInvocation {
  return {
    scenario: scenario(),
    scenarioDir: "/p/scenarios/passthrough",
    load: load(),
    durationS: 5,
    baseUrl: "http://127.0.0.1:8080",
    cpus: [0],
    outDir: "/out",
    fileStem: "rep-0",
    ...overrides,
  };
}

describe("buildWrkArgs", () => {
  const cases: { name: string; inv: Partial<EngineInvocation>; expected: string[] }[] = [
    {
      name: "one core, vus as connections",
      inv: {},
      expected: [
        "-t",
        "1",
        "-c",
        "32",
        "-d",
        "5s",
        "--timeout",
        "10s",
        "--latency",
        "-s",
        "/lib/wrk.lua",
        "http://127.0.0.1:8080/api/values",
      ],
    },
    {
      name: "threads follow the load generator's cores; connections win over vus",
      inv: { cpus: [0, 1], load: load({ model: "max-throughput", connections: 256 }), durationS: 10 },
      expected: [
        "-t",
        "2",
        "-c",
        "256",
        "-d",
        "10s",
        "--timeout",
        "10s",
        "--latency",
        "-s",
        "/lib/wrk.lua",
        "http://127.0.0.1:8080/api/values",
      ],
    },
    {
      name: "at least one connection per thread; whole seconds; trailing slash of the base URL",
      inv: { cpus: [0, 1, 2, 3], load: load({ vus: 2 }), durationS: 2.4, baseUrl: "http://127.0.0.1:9/" },
      expected: [
        "-t",
        "4",
        "-c",
        "4",
        "-d",
        "2s",
        "--timeout",
        "10s",
        "--latency",
        "-s",
        "/lib/wrk.lua",
        "http://127.0.0.1:9/api/values",
      ],
    },
    {
      name: "not pinned: one thread; the URL is the first expanded request",
      inv: {
        cpus: [],
        durationS: 0.2,
        scenario: scenario({ requests: [{ path: "/countries/{c}", vars: { c: ["us", "fr"] } }] }),
      },
      expected: [
        "-t",
        "1",
        "-c",
        "32",
        "-d",
        "1s",
        "--timeout",
        "10s",
        "--latency",
        "-s",
        "/lib/wrk.lua",
        "http://127.0.0.1:8080/countries/us",
      ],
    },
  ];
  it.each(cases)("$name", ({ inv, expected }) => {
    expect(buildWrkArgs(invocation(inv), "/lib/wrk.lua")).toEqual(expected);
  });

  it.each(["constant-arrival-rate", "fixed-count"] as const)("refuses %s loads, pointing to k6", (model) => {
    const inv = invocation({ load: load({ model, rate: 10, requests: 10 }) });
    expect(() => buildWrkArgs(inv, "/lib/wrk.lua")).toThrow(UserError);
    expect(() => buildWrkArgs(inv, "/lib/wrk.lua")).toThrow(/wrk runs closed-model loads only.*--engine k6/);
  });
});

describe("luaString", () => {
  it.each([
    ["plain", "/api/values", '"/api/values"'],
    ["quotes and backslashes", 'a"b\\c', '"a\\"b\\\\c"'],
    ["control characters", "a\nb\r\t", '"a\\010b\\013\\009"'],
    ["non-ASCII as UTF-8 bytes", "é", '"\\195\\169"'],
    ["empty", "", '""'],
  ])("%s", (_name, input, expected) => {
    expect(luaString(input)).toBe(expected);
  });
});

describe("luaRequests and buildWrkEnv", () => {
  it("writes the expanded requests as a Lua table", () => {
    const s = scenario({
      requests: [
        { path: "/countries/{c}", vars: { c: ["us", "fr"] } },
        { method: "POST", path: "/p", headers: { "X-A": 'q"' }, body: "{}" },
      ],
    });
    const lua =
      '{{method="GET", path="/countries/us", headers={}}, {method="GET", path="/countries/fr", headers={}}, ' +
      '{method="POST", path="/p", headers={["X-A"]="q\\""}, body="{}"}}';
    expect(luaRequests([])).toBe("{}");
    expect(buildWrkEnv(invocation({ scenario: s }), "/out/rep-0.wrk.json")).toEqual({
      PROXYBENCH_WRK_REQUESTS: lua,
      PROXYBENCH_WRK_OUT: "/out/rep-0.wrk.json",
    });
  });
});
