import { describe, expect, it } from "vitest";
import { buildH2loadArgs } from "../../../../src/engines/h2load/args.js";
import { parseFinishedS } from "../../../../src/engines/h2load/log.js";
import type { EngineInvocation } from "../../../../src/engines/types.js";
import { load, scenario } from "../../../support/engines/manifests.js";

function invocation(overrides: Partial<EngineInvocation> = {}): EngineInvocation {
  return {
    scenario: scenario({ protocol: "h2c", engine: "h2load" }),
    scenarioDir: "/p/scenarios/passthrough-h2c",
    load: load(),
    durationS: 5,
    baseUrl: "http://127.0.0.1:8080/",
    cpus: [0],
    outDir: "/out",
    fileStem: "rep-0",
    ...overrides,
  };
}

describe("buildH2loadArgs", () => {
  it.each<{ name: string; inv: Partial<EngineInvocation>; body?: string; expected: string[] }>([
    {
      name: "h2c GET: one thread per core, a client per VU, one stream each, the log file",
      inv: {},
      expected: [
        "-t",
        "1",
        "-c",
        "32",
        "-m",
        "1",
        "-D",
        "5",
        "--log-file",
        "/out/rep-0.h2load.tsv",
        "http://127.0.0.1:8080/api/values",
      ],
    },
    {
      name: "h2 over TLS, connections of a max-throughput load, two cores, seconds rounded",
      inv: {
        baseUrl: "https://127.0.0.1:8443",
        load: load({ model: "max-throughput", connections: 64, vus: undefined }),
        cpus: [0, 1],
        durationS: 2.4,
      },
      expected: [
        "-t",
        "2",
        "-c",
        "64",
        "-m",
        "1",
        "-D",
        "2",
        "--log-file",
        "/out/rep-0.h2load.tsv",
        "https://127.0.0.1:8443/api/values",
      ],
    },
    {
      name: "POST with headers and a body file",
      inv: {
        scenario: scenario({
          protocol: "h2c",
          requests: [
            { method: "POST", path: "/ping", headers: { "content-type": "application/json" }, body: "{}" },
          ],
        }),
      },
      body: "/out/rep-0.h2load-body",
      expected: [
        "-t",
        "1",
        "-c",
        "32",
        "-m",
        "1",
        "-D",
        "5",
        "--log-file",
        "/out/rep-0.h2load.tsv",
        "-H",
        "content-type: application/json",
        "-d",
        "/out/rep-0.h2load-body",
        "http://127.0.0.1:8080/ping",
      ],
    },
  ])("$name", ({ inv, body, expected }) => {
    const files = { logFile: "/out/rep-0.h2load.tsv", ...(body === undefined ? {} : { bodyFile: body }) };
    expect(buildH2loadArgs(invocation(inv), files)).toEqual(expected);
  });

  it("an open-model load is refused, naming the engine that runs it", () => {
    const inv = invocation({ load: load({ model: "constant-arrival-rate", rate: 100 }) });
    expect(() => buildH2loadArgs(inv, { logFile: "/l" })).toThrow(
      "load 'default': h2load runs closed-model loads only (constant-vus, max-throughput), not constant-arrival-rate; use --engine k6",
    );
  });
});

describe("parseFinishedS", () => {
  it.each([
    ["finished in 5.00s, 16400.20 req/s, 1.20MB/s\n", 5],
    ["starting benchmark...\nfinished in 500ms, 100 req/s\n", 0.5],
    ["no summary", undefined],
  ])("%j", (text, seconds) => {
    expect(parseFinishedS(text)).toBe(seconds);
  });
});
