import { cp, mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildK6Config, buildK6Env } from "../../../../src/engines/k6/config.js";
import { K6Engine } from "../../../../src/engines/k6/adapter.js";
import { stageScript } from "../../../../src/engines/k6/script.js";
import type { ScenarioManifest } from "../../../../src/manifests/schema.js";
import type { Load } from "../../../../src/results/schema.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";
import { runCommand } from "../../../../src/util/processes.js";
import { loadScenario } from "../../../support/engines/scenarios.js";

/** `k6 inspect` of a script with the configuration proxybench would give it: exit code and output. */
async function inspectScript(
  script: string,
  scenario: { manifest: ScenarioManifest; dir: string },
  load: Load,
): Promise<{ code: number | null; output: string }> {
  const inv = {
    scenario: scenario.manifest,
    scenarioDir: scenario.dir,
    load,
    durationS: 3,
    baseUrl: "http://127.0.0.1:9",
    cpus: [],
    outDir: "/tmp",
    fileStem: "x",
  };
  const config = buildK6Config(inv, "/tmp/x.k6.json");
  const { path: k6 } = await new K6Engine().locate();
  return runCommand(k6, ["inspect", "--include-system-env-vars", script], {
    env: buildK6Env(config),
    timeoutMs: 20_000,
  });
}

// The shipped k6 scripts, read by real k6 (`k6 inspect` evaluates the options without sending
// anything): the options come from scenario.yml through PROXYBENCH_CONFIG.
async function inspect(name: string, load: Load): Promise<Record<string, unknown>> {
  const scenario = await loadScenario(name);
  const { code, output } = await inspectScript(
    path.join(scenario.dir, scenario.manifest.script),
    scenario,
    load,
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

describe("a built-in scenario copied to a folder of the user's", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const load: Load = { label: "default", model: "constant-vus", vus: 4 };

  it.each([
    ["passthrough", path.join(PROJECT_ROOT, "scenarios", "passthrough")],
    ["pingpong-grpc", path.join(PROJECT_ROOT, "studies", "grpc-gateway", "scenarios", "pingpong-grpc")],
  ])("%s: k6 loads it, the scenario library resolved from proxybench's folder", async (name, from) => {
    const root = await mkdtemp(path.join(os.tmpdir(), "pb-copy-"));
    dirs.push(root);
    const dir = path.join(root, name);
    await cp(from, dir, { recursive: true });
    const scenario = { ...(await loadScenario(name === "passthrough" ? name : "passthrough")), dir };
    const script = path.join(dir, "script.js");

    // as copied, k6 itself cannot load it: the library is not beside the copy
    const bare = await inspectScript(script, scenario, load);
    expect(bare.code).not.toBe(0);
    expect(bare.output).toMatch(/lib\/proxybench(-grpc)?\.js/);

    const staged = await stageScript(script);
    expect(staged.path).not.toBe(script);
    const { code, output } = await inspectScript(staged.path, scenario, load);
    expect(code, output).toBe(0);
    expect(Object.keys((JSON.parse(output) as { scenarios: object }).scenarios)).toEqual(["passthrough"]);
    await staged.remove();
    await expect(stat(path.dirname(staged.path))).rejects.toThrow(/ENOENT/);
  });

  it("a script whose imports resolve where it is runs as it is", async () => {
    const script = path.join(PROJECT_ROOT, "scenarios", "passthrough", "script.js");
    const staged = await stageScript(script);
    expect(staged.path).toBe(script);
  });
});
