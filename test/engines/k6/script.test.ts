import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildK6Config, buildK6Env } from "../../../src/engines/k6/config.js";
import { K6Engine } from "../../../src/engines/k6/adapter.js";
import type { Load } from "../../../src/results/schema.js";
import { runCommand } from "../../../src/util/processes.js";
import { loadScenario } from "../support/scenarios.js";

// The shipped k6 scripts, read by real k6 (`k6 inspect` evaluates the options without sending
// anything): the options come from scenario.yml through PROXYBENCH_CONFIG.
async function inspect(name: string, load: Load): Promise<Record<string, unknown>> {
  const { manifest, dir } = await loadScenario(name);
  const inv = {
    scenario: manifest,
    scenarioDir: dir,
    load,
    durationS: 3,
    baseUrl: "http://127.0.0.1:9",
    cpus: [],
    outDir: "/tmp",
    fileStem: "x",
  };
  const config = buildK6Config(inv, "/tmp/x.k6.json");
  const { path: k6 } = await new K6Engine().locate();
  const { code, output } = await runCommand(
    k6,
    ["inspect", "--include-system-env-vars", path.join(dir, manifest.script)],
    { env: buildK6Env(config), timeoutMs: 20_000 },
  );
  expect(code, output).toBe(0);
  return JSON.parse(output) as Record<string, unknown>;
}

describe("shipped k6 scripts", () => {
  const cases: { load: Load; scenario: Record<string, unknown> }[] = [
    {
      load: { label: "default", model: "constant-vus", vus: 32 },
      scenario: { executor: "constant-vus", vus: 32, duration: "3s", gracefulStop: "2s" },
    },
    {
      load: { label: "max", model: "max-throughput", connections: 256 },
      scenario: { executor: "constant-vus", vus: 256, duration: "3s" },
    },
    {
      load: { label: "rate", model: "constant-arrival-rate", rate: 2000, vus: 64 },
      scenario: {
        executor: "constant-arrival-rate",
        rate: 2000,
        timeUnit: "1s",
        duration: "3s",
        preAllocatedVUs: 64,
        maxVUs: 64,
      },
    },
    {
      load: { label: "count", model: "fixed-count", requests: 20_000, vus: 100 },
      scenario: { executor: "shared-iterations", vus: 100, iterations: 20_000, maxDuration: "3s" },
    },
  ];

  it.each(cases)("passthrough, $load.model", async ({ load, scenario }) => {
    const options = await inspect("passthrough", load);
    expect(options.scenarios).toEqual({ passthrough: expect.objectContaining(scenario) as unknown });
    expect(options.summaryTrendStats).toEqual([
      "min",
      "avg",
      "med",
      "p(75)",
      "p(90)",
      "p(95)",
      "p(99)",
      "p(99.9)",
      "max",
      "count",
    ]);
    // Accepted responses are counted by k6's own http_reqs through a submetric per status.
    expect(options.thresholds).toEqual({
      "http_req_duration{expected_response:true}": ["max>=0"],
      "http_reqs{expected_response:true,status:200}": ["count>=0"],
    });
    // bodies are discarded except on the sampled requests, which ask for them
    expect(options.discardResponseBodies).toBe(true);
  });

  it("json-lookup: a fixed count is divided by the five requests of an iteration", async () => {
    const options = await inspect("json-lookup", {
      label: "n",
      model: "fixed-count",
      requests: 1000,
      vus: 10,
    });
    expect(options.scenarios).toEqual({
      "json-lookup": expect.objectContaining({ executor: "shared-iterations", iterations: 200 }) as unknown,
    });
  });

  it("says how to run it when PROXYBENCH_CONFIG is missing", async () => {
    const { manifest, dir } = await loadScenario("passthrough");
    const { path: k6 } = await new K6Engine().locate();
    const { code, output } = await runCommand(k6, ["inspect", path.join(dir, manifest.script)], {
      env: { PROXYBENCH_CONFIG: "" },
      timeoutMs: 20_000,
    });
    expect(code).not.toBe(0);
    expect(output).toContain("PROXYBENCH_CONFIG is not set");
  });
});
