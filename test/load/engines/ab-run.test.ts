import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { abEngine } from "../../../src/engines/ab.js";
import { ScenarioManifest } from "../../../src/manifests/schema.js";
import type { Load } from "../../../src/results/schema.js";
import { freePort } from "../../../src/util/ports.js";
import { startProcess, type ManagedProcess } from "../../../src/util/processes.js";

// The ab adapter against a real NGINX serving the Ocelot study's 19-byte body and a 404 path.

let dir: string;
let port: number;
let nginx: ManagedProcess;

async function waitForPort(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not come up`);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "proxybench-ab-"));
  port = await freePort();
  const conf = `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  server {
    listen 127.0.0.1:${port};
    location = /api/values { default_type application/json; return 200 '["value1","value2"]'; }
    location = /missing { return 404; }
  }
}
`;
  await writeFile(path.join(dir, "nginx.conf"), conf);
  nginx = await startProcess({
    name: "nginx",
    command: "/usr/sbin/nginx",
    args: ["-c", path.join(dir, "nginx.conf"), "-p", dir],
    logFile: path.join(dir, "nginx.log"),
  });
  await waitForPort(`http://127.0.0.1:${port}/api/values`);
});

afterAll(async () => {
  await nginx.stop();
});

function scenario(p: string): ScenarioManifest {
  return ScenarioManifest.parse({
    name: "values",
    description: "GET the 19-byte body",
    engine: "ab",
    requests: [{ path: p }],
    loads: [{ label: "d", model: "fixed-count", connections: 20, requests: 2000 }],
  });
}

async function run(p: string, load: Load, targetPort = port) {
  return abEngine.run({
    scenario: scenario(p),
    scenarioDir: dir,
    load,
    durationS: 1,
    baseUrl: `http://127.0.0.1:${targetPort}/`,
    cpus: [],
    outDir: dir,
    fileStem: `${p.slice(1).replaceAll("/", "-")}-${load.label}`,
  });
}

describe("ab engine, real runs", () => {
  it("locates ab and reads its version", async () => {
    expect((await abEngine.locate()).version).toMatch(/^2\.\d/);
  });

  it("fixed count: every request successful, raw outputs kept", async () => {
    const m = await run("/api/values", { label: "n", model: "fixed-count", connections: 20, requests: 2000 });
    expect(m.engineErrors).toEqual([]);
    expect(m.requests).toBe(2000);
    expect(m.errors + m.non2xx + m.checkFailures).toBe(0);
    expect(m.rps).toBeGreaterThan(0);
    expect(m.latencyMs.max).toBeGreaterThanOrEqual(m.latencyMs.p50);
    expect(m.raw).toEqual(["api-values-n.ab.txt", "api-values-n.ab.csv"]);
    expect(await readFile(path.join(dir, "api-values-n.ab.txt"), "utf8")).toMatch(
      /Complete requests:\s+2000/,
    );
  });

  it("timed keep-alive run stops on time, not at ab's 50000 default", async () => {
    const m = await run("/api/values", {
      label: "t",
      model: "max-throughput",
      connections: 10,
      keepAlive: true,
    });
    expect(m.engineErrors).toEqual([]);
    expect(m.durationS).toBeGreaterThan(0.5);
    expect(m.errors + m.non2xx).toBe(0);
    const text = await readFile(path.join(dir, "api-values-t.ab.txt"), "utf8");
    expect(text).toMatch(/Keep-Alive requests:\s+[1-9]/);
  });

  it("a 404 path: every response counted as non-2xx", async () => {
    const m = await run("/missing", { label: "n", model: "fixed-count", connections: 5, requests: 200 });
    expect(m).toMatchObject({ requests: 200, non2xx: 200, rps: 0, statusCodes: { "non-2xx": 200 } });
  });

  it("a closed port: transport errors, no successful request", async () => {
    const closed = await freePort();
    const m = await run(
      "/api/values",
      { label: "c", model: "fixed-count", connections: 5, requests: 50 },
      closed,
    );
    expect(m.rps).toBe(0);
    expect(m.errors).toBe(m.requests);
    expect(m.errors).toBeGreaterThan(0);
  });
});
