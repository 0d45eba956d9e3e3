import { createServer, type Server } from "node:http";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyRepetition } from "../../../../src/engines/classify.js";
import { VegetaEngine } from "../../../../src/engines/vegeta/adapter.js";
import { ScenarioManifest } from "../../../../src/manifests/schema.js";
import type { Load } from "../../../../src/results/schema.js";
import { freePort } from "../../../../src/util/ports.js";
import { startTestServer, type TestServer } from "../../../support/engines/nginx.js";

// The vegeta adapter against a real NGINX (the 19-byte body, a 404) and a slow local server.

const vegeta = new VegetaEngine();
let server: TestServer;
let out: string;
let slow: Server;

beforeAll(async () => {
  server = await startTestServer();
  out = await mkdtemp(path.join(tmpdir(), "proxybench-vegeta-"));
  slow = createServer((_req, res) => {
    setTimeout(() => res.end('["value1","value2"]'), 200);
  });
  await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  await server.stop();
  await new Promise((resolve) => slow.close(resolve));
  await rm(out, { recursive: true, force: true });
});

function scenario(p: string, check: Record<string, unknown> = {}): ScenarioManifest {
  return ScenarioManifest.parse({
    name: "values",
    description: "GET the 19-byte body",
    requests: [{ path: p }],
    check: { status: [200], bodyEquals: '["value1","value2"]', ...check },
    loads: [{ label: "100rps", model: "constant-arrival-rate", rate: 100 }],
  });
}

const rate = (r: number, vus?: number): Load => ({
  label: "rate",
  model: "constant-arrival-rate",
  rate: r,
  ...(vus === undefined ? {} : { vus }),
});

async function run(p: string, load: Load, baseUrl = server.baseUrl, stem = p.slice(1).replaceAll("/", "-")) {
  return vegeta.run({
    scenario: scenario(p),
    scenarioDir: out,
    load,
    durationS: 2,
    baseUrl,
    cpus: [0],
    outDir: out,
    fileStem: stem,
  });
}

describe("vegeta engine, real runs", () => {
  it("locates the pinned vegeta and reads its version", async () => {
    expect((await vegeta.locate()).version).toMatch(/^12\.\d+\.\d+$/);
  });

  it("100 req/s for 2 s: every request sent on time and correct, raw results kept", async () => {
    const m = await run("/api/values", rate(100));
    expect(m.engineErrors).toEqual([]);
    expect(m.requests).toBeGreaterThanOrEqual(200);
    expect(m.requests).toBeLessThanOrEqual(201);
    expect(m).toMatchObject({ errors: 0, non2xx: 0, checkFailures: 0, droppedIterations: 0 });
    expect(m.rps).toBeGreaterThan(90);
    expect(m.rps).toBeLessThan(110);
    expect(m.latencyMs.p99).toBeGreaterThanOrEqual(m.latencyMs.p50);
    expect(m.loadgenCpu).toBeGreaterThan(0);
    // ok, unless other tenants of this shared machine keep the pinned core busy (then it says so)
    const c = classifyRepetition(m, { loadgenCores: 1 });
    if (c.status !== "ok") {
      expect(c.status).toBe("loadgen-bound");
      expect(c.reasons).toEqual([
        expect.stringMatching(/^the load generator's core was \d+% busy, 0\.\d+ core by/),
      ]);
    }
    expect(m.raw).toEqual([
      "api-values.vegeta.bin",
      "api-values.vegeta.log",
      "api-values.vegeta-targets.json",
    ]);
    const files = await readdir(out);
    expect(files).not.toContain("api-values.vegeta.json"); // decoded, judged, removed
  });

  it("a 404 path: every response non-2xx, the cell invalid", async () => {
    const m = await run("/missing", rate(50));
    expect(m.non2xx).toBe(m.requests);
    expect(m.statusCodes).toEqual({ "404": m.requests });
    expect(classifyRepetition(m, { loadgenCores: 1 })).toMatchObject({ status: "invalid" });
  });

  it("a closed port: transport errors, never 0 ms samples", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const m = await run("/api/values", rate(20), closed, "closed");
    expect(m.errors).toBe(m.requests);
    expect(m.errors).toBeGreaterThan(0);
    expect(m.rps).toBe(0);
    expect(m.latencyMs.max).toBe(0);
    expect(classifyRepetition(m, { loadgenCores: 1 }).status).toBe("invalid");
  });

  it("too few workers for a 200 ms target: requests fall short of the plan, loadgen-bound", async () => {
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const m = await run("/api/values", rate(100, 2), slowUrl, "slow");
    expect(m.droppedIterations).toBeGreaterThan(100);
    expect(classifyRepetition(m, { loadgenCores: 1 })).toMatchObject({ status: "loadgen-bound" });
  });

  it("a header check on every response: responses without it fail, with the reason", async () => {
    const m = await vegeta.run({
      scenario: scenario("/api/values", { headers: { "X-Guid-1": "anything" } }),
      scenarioDir: out,
      load: rate(50),
      durationS: 1,
      baseUrl: server.baseUrl,
      cpus: [],
      outDir: out,
      fileStem: "header-check",
    });
    expect(m.requests).toBeGreaterThan(0);
    expect(m.checkFailures).toBe(m.requests);
    const c = classifyRepetition(m, { loadgenCores: 1 });
    expect(c.status).toBe("invalid");
    expect(c.reasons.join(" ")).toContain("response header X-Guid-1: missing");
  });
});
