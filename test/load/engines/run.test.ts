import { access, copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyRepetition, getEngine } from "../../../src/engines/index.js";
import { K6Engine } from "../../../src/engines/k6/adapter.js";
import type { EngineInvocation, EngineMeasurement } from "../../../src/engines/types.js";
import type { Load } from "../../../src/results/schema.js";
import { UserError } from "../../../src/util/errors.js";
import { freePort } from "../../../src/util/ports.js";
import { liveProcesses } from "../../../src/util/processes.js";
import { FIXTURES } from "../../support/engines/fixtures.js";
import { load, scenario } from "../../support/engines/manifests.js";
import { startTestServer, type TestServer } from "../../support/engines/nginx.js";
import { loadScenario } from "../../support/engines/scenarios.js";

// Real k6 and wrk, 1 s each, against a real nginx; the load generator on core 0, nginx on core 1.
const LOADGEN = [0];
let server: TestServer;
let outDir: string;
let runs = 0;

beforeAll(async () => {
  server = await startTestServer({ cpus: [1] });
  outDir = await mkdtemp(path.join(os.tmpdir(), "proxybench-engine-runs-"));
});
afterAll(async () => {
  await server.stop();
  await rm(outDir, { recursive: true, force: true });
});

async function invocation(
  name: string,
  overrides: Partial<EngineInvocation> = {},
): Promise<EngineInvocation> {
  const { manifest, dir } = await loadScenario(name);
  return {
    scenario: manifest,
    scenarioDir: dir,
    // A closed-model level, which every engine runs.
    load: { ...manifest.loads.find((l) => l.model === "constant-vus")!, vus: 8 },
    durationS: 1,
    baseUrl: server.baseUrl,
    cpus: LOADGEN,
    outDir,
    fileStem: `run-${runs++}`,
    ...overrides,
  };
}

function expectSane(m: EngineMeasurement): void {
  expect(m.exitCode).toBe(0);
  expect(m.engineErrors).toEqual([]);
  expect(m.requests).toBeGreaterThan(0);
  // throughput is successful requests over the measured window
  expect(m.rps * m.durationS).toBeLessThanOrEqual(m.requests + 1e-6);
  expect(m.rps * m.durationS).toBeGreaterThan(m.requests * 0.8);
  const { min, p50, p99, max } = m.latencyMs;
  expect(min).toBeGreaterThan(0);
  expect(min).toBeLessThanOrEqual(p50);
  expect(p50).toBeLessThanOrEqual(p99);
  expect(p99).toBeLessThanOrEqual(max);
  expect(m.loadgenCpu).toBeGreaterThan(0);
  expect(m.loadgenCpu).toBeLessThanOrEqual(LOADGEN.length + 0.05);
  // its pinned core was at least as busy as it made it (other processes add to that)
  expect(m.loadgenCoresBusy).toBeGreaterThan(0);
}

async function expectRawFiles(m: EngineMeasurement): Promise<void> {
  expect(m.raw.length).toBeGreaterThan(0);
  for (const file of m.raw) await access(path.join(outDir, file));
}

describe.each(["k6", "wrk"] as const)("%s engine", (engine) => {
  it("locates the tool and reads its version", async () => {
    const { path: bin, version } = await getEngine(engine).locate();
    expect(path.basename(bin)).toBe(engine);
    expect(version).toMatch(/^\d+\.\d+/);
  });

  it.each(["passthrough", "json-lookup"])("%s: a clean run", async (name) => {
    const m = await getEngine(engine).run(await invocation(name));
    expectSane(m);
    expect(m.non2xx).toBe(0);
    expect(m.errors).toBe(0);
    expect(m.checkFailures).toBe(0);
    expect(m.bytesReceived).toBeGreaterThan(0);
    await expectRawFiles(m);
    expect(classifyRepetition(m, { loadgenCores: LOADGEN.length }).status).toMatch(/^(ok|loadgen-bound)$/);
  });

  it("a path that answers 404: non-2xx counted, the repetition invalid", async () => {
    const s = scenario({ requests: [{ path: "/missing" }] });
    const m = await getEngine(engine).run(await invocation("passthrough", { scenario: s }));
    expect(m.requests).toBeGreaterThan(0);
    expect(m.non2xx).toBe(m.requests);
    expect(m.rps).toBe(0);
    if (engine === "k6") expect(m.statusCodes).toEqual({ "404": m.requests });
    const c = classifyRepetition(m, { loadgenCores: 1 });
    expect(c.status).toBe("invalid");
    expect(c.reasons[0]).toMatch(
      engine === "k6" ? /non-2xx responses of \d+ \(404: \d+\)/ : /non-2xx responses/,
    );
  });

  it("a closed port: the repetition failed, no latency, no stale summary read", async () => {
    const port = await freePort();
    // a summary left by an earlier run with the same stem must not be taken for this run's
    await copyFile(path.join(FIXTURES, engine, "clean.json"), path.join(outDir, `stale.${engine}.json`));
    const m = await getEngine(engine).run(
      await invocation("passthrough", { baseUrl: `http://127.0.0.1:${port}`, fileStem: "stale" }),
    );
    expect(m.requests).toBe(0);
    expect(m.exitCode).not.toBe(0);
    expect(m.engineErrors.join("\n")).toMatch(
      engine === "k6"
        ? /^the k6 script aborted the test \(exit 108\): test aborted: target http:\/\/127\.0\.0\.1:\d+ is down/
        : /^wrk exited with code 1: unable to connect to 127\.0\.0\.1:\d+ Connection refused/,
    );
    expect(m.rps).toBe(0);
    expect(m.latencyMs.max).toBe(0);
    expect(classifyRepetition(m, { loadgenCores: 1 }).status).toBe("failed");
  });
});

describe("k6 engine", () => {
  it("refused connections during the load count as errors, not as latency", async () => {
    const port = await freePort();
    const m = await new K6Engine().run(
      await invocation("passthrough", { baseUrl: `http://127.0.0.1:${port}` }),
      {
        failFast: false,
      },
    );
    expect(m.exitCode).toBe(0);
    expect(m.errors).toBeGreaterThan(0);
    expect(m.statusCodes).toEqual({ "0": m.errors });
    expect(m.rps).toBe(0);
    expect(m.latencyMs).toEqual({ min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 });
    const c = classifyRepetition(m, { loadgenCores: 1 });
    expect(c.status).toBe("invalid");
    expect(c.reasons).toContain(`${m.errors} transport errors (connection refused, reset or timed out)`);
  });

  it("body check failures on 200s: every sampled response (one in 16 after each VU's first 8) fails", async () => {
    const s = scenario({ check: { status: [200], bodyEquals: "something else" } });
    const m = await getEngine("k6").run(await invocation("passthrough", { scenario: s }));
    expect(m.checkFailures).toBeGreaterThanOrEqual(Math.floor(m.requests / 16));
    expect(m.checkFailures).toBeLessThan(m.requests);
    expect(m.statusCodes["200"]).toBe(m.requests);
    expect(m.non2xx).toBe(0);
    expect(classifyRepetition(m, { loadgenCores: 1 }).status).toBe("invalid");
  });

  it("an arrival rate it cannot hold: dropped iterations, loadgen-bound", async () => {
    const l: Load = { label: "too-fast", model: "constant-arrival-rate", rate: 20_000, vus: 2 };
    const m = await getEngine("k6").run(await invocation("passthrough", { load: l }));
    expect(m.droppedIterations).toBeGreaterThan(0);
    const c = classifyRepetition(m, { loadgenCores: 1 });
    expect(c.status).toBe("loadgen-bound");
    expect(c.reasons.join("\n")).toMatch(/iterations dropped/);
  });

  it("a slow target: each VU's response still in flight at the window's end is left out of throughput", async () => {
    // 50 ms per answer, 4 VUs, 1 s: about 80 responses in the window, and the last request of
    // each VU, sent before the end, answered after it (the clock is read on fewer responses far
    // from the end; near it, on every one).
    const slow = http.createServer((_req, res) => {
      setTimeout(
        () => res.writeHead(200, { "content-type": "application/json" }).end('["value1","value2"]'),
        50,
      );
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = slow.address() as AddressInfo;
      const m = await getEngine("k6").run(
        await invocation("passthrough", { baseUrl: `http://127.0.0.1:${port}`, load: load({ vus: 4 }) }),
      );
      const summary = m.raw.find((f) => f.endsWith(".k6.json"))!;
      const raw = JSON.parse(await readFile(path.join(outDir, summary), "utf8")) as {
        metrics: Record<string, { values: { count?: number } } | undefined>;
      };
      const tail = raw.metrics.proxybench_ok_tail?.values.count ?? 0;
      expect(m.checkFailures + m.non2xx + m.errors).toBe(0);
      expect(tail).toBeGreaterThanOrEqual(1);
      expect(tail).toBeLessThanOrEqual(4);
      expect(m.rps * m.durationS).toBeCloseTo(m.requests - tail, 6);
      // 4 VUs x 1000 ms / (50 ms and k6's own time per response)
      expect(m.requests - tail).toBeGreaterThan(40);
      expect(m.requests - tail).toBeLessThanOrEqual(80);
    } finally {
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it("an abort stops k6 and keeps what it measured", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1500);
    const m = await getEngine("k6").run(
      await invocation("passthrough", { durationS: 30, signal: controller.signal }),
    );
    expect(m.engineErrors).toContain("the run was interrupted");
    // k6 stops gracefully on SIGTERM and still writes its summary
    expect(m.requests).toBeGreaterThan(0);
    expect(m.raw.some((f) => f.endsWith(".k6.json"))).toBe(true);
    expect(classifyRepetition(m, { loadgenCores: 1 }).status).toBe("failed");
    expect(liveProcesses().filter((p) => p.name.startsWith("k6"))).toEqual([]);
  });
});

describe("wrk engine", () => {
  it("sends headers that need escaping in Lua", async () => {
    const s = scenario({
      requests: [{ path: "/api/values", headers: { "X-Proxybench": 'a "quoted" \\ value é' } }],
    });
    const m = await getEngine("wrk").run(await invocation("passthrough", { scenario: s }));
    expectSane(m);
  });

  it("refuses open-model loads before starting", async () => {
    const l = load({ model: "constant-arrival-rate", rate: 100 });
    await expect(getEngine("wrk").run(await invocation("passthrough", { load: l }))).rejects.toThrow(
      UserError,
    );
  });
});

describe("getEngine", () => {
  it("returns one adapter per engine", () => {
    expect(getEngine("k6")).toBe(getEngine("k6"));
    expect(getEngine("wrk").name).toBe("wrk");
    expect(getEngine("ab").name).toBe("ab");
  });
});
