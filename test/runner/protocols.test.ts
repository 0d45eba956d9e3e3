import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import * as engines from "../../src/engines/index.js";
import { readResults } from "../../src/results/io.js";
import { runBenchmark } from "../../src/runner/run.js";
import type { RunRequest } from "../../src/runner/settings.js";
import { PROJECT_ROOT } from "../../src/util/paths.js";
import { liveProcesses } from "../../src/util/processes.js";
import { collectText, descendants, measuredStatus } from "./helpers.js";

// Real upstream (HTTP and gRPC), nginx (proxy_pass and grpc_pass), HAProxy, the grpc-gateway
// proxy and k6 (HTTP and k6/net/grpc), through the runner, a couple of seconds each.
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
const STUDY_SCENARIOS = path.join(PROJECT_ROOT, "studies", "grpc-gateway", "scenarios");

let tmp: string;
let scenarios: string;

/** A copy of the study's scenarios, plus `name`: pingpong-grpc with `change` applied. */
async function grpcVariant(name: string, change: (manifest: Record<string, unknown>) => void): Promise<void> {
  const dir = path.join(scenarios, name);
  await cp(path.join(scenarios, "pingpong-grpc"), dir, { recursive: true });
  const manifest = parse(await readFile(path.join(dir, "scenario.yml"), "utf8")) as Record<string, unknown>;
  manifest.name = name;
  change(manifest);
  await writeFile(path.join(dir, "scenario.yml"), stringify(manifest));
}

async function run(name: string, request: Partial<RunRequest>) {
  const out = path.join(tmp, name);
  const outcome = await runBenchmark(
    { repetitions: 1, durationS: 2, warmupS: 1, cpus, out, scenariosDirs: [scenarios], ...request },
    { engines, stderr: collectText(), stdout: collectText(), handleSignals: false },
  );
  return { outcome, results: await readResults(out) };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "pb-protocols-"));
  // Under a folder named like the study's, so that the scripts' relative import of
  // scenarios/lib resolves the same way.
  scenarios = path.join(tmp, "studies", "grpc-gateway", "scenarios");
  await mkdir(path.dirname(scenarios), { recursive: true });
  await cp(STUDY_SCENARIOS, scenarios, { recursive: true });
  await cp(path.join(PROJECT_ROOT, "scenarios", "lib"), path.join(tmp, "scenarios", "lib"), {
    recursive: true,
  });
  await grpcVariant("pingpong-grpc-wrong-reply", (m) => {
    m.check = { bodyEquals: '{"message":"pong"}' };
  });
  await grpcVariant("pingpong-grpc-overloaded", (m) => {
    // 20 calls/s served, 300 asked: the upstream answers UNAVAILABLE to a call that would wait
    // for its turn longer than its 1 s queue timeout.
    m.upstream = { maxRps: 20 };
    m.loads = [{ label: "default", model: "constant-arrival-rate", rate: 300, vus: 32 }];
  });
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("protocols end to end", () => {
  it("gRPC direct and through nginx's grpc_pass, REST direct and through nginx, HAProxy and grpc-gateway; HAProxy and grpc-gateway skipped on gRPC", async () => {
    const { results } = await run("all", {
      proxies: ["direct", "nginx", "haproxy", "grpc-gateway"],
      scenarios: ["pingpong-grpc", "pingpong-rest"],
    });
    expect(results.cells.map((c) => `${c.id} ${measuredStatus(c)}`)).toEqual([
      "pingpong-grpc/default/direct/k6 measured",
      "pingpong-grpc/default/nginx/k6 measured",
      "pingpong-rest/default/direct/k6 measured",
      "pingpong-rest/default/nginx/k6 measured",
      "pingpong-rest/default/haproxy/k6 measured",
      "pingpong-rest/default/grpc-gateway/k6 measured",
    ]);
    for (const c of results.cells) {
      const grpc = c.scenario === "pingpong-grpc";
      expect(c.protocol).toBe(grpc ? "grpc" : undefined);
      for (const r of c.repetitions) {
        expect(r.requests).toBeGreaterThan(0);
        expect(r.statusCodes).toEqual({ [grpc ? "OK" : "200"]: r.requests });
        expect(r.checkFailures).toBe(0);
      }
    }
    expect(results.skipped).toEqual([
      {
        proxy: "haproxy",
        scenario: "pingpong-grpc",
        reason: "does not front grpc (its proxy.yml declares protocols: http1)",
      },
      {
        proxy: "grpc-gateway",
        scenario: "pingpong-grpc",
        reason: "does not front grpc (its proxy.yml declares protocols: http1)",
      },
    ]);
    expect(liveProcesses()).toEqual([]);
    expect(descendants(process.pid)).toEqual([]);
  });

  it("a wrong reply makes the gRPC cell invalid", async () => {
    const { outcome, results } = await run("wrong-reply", {
      proxies: ["nginx"],
      scenarios: ["pingpong-grpc-wrong-reply"],
    });
    const [cell] = results.cells;
    expect(cell?.status).toBe("invalid");
    expect(cell?.reasons.join("; ")).toMatch(/OK gRPC calls? with a reply that failed the scenario's check/);
    expect(outcome.exitCode).toBe(1);
  });

  it("UNAVAILABLE answers through nginx make the cell invalid, with the status codes counted", async () => {
    const { results } = await run("unavailable", {
      proxies: ["nginx"],
      scenarios: ["pingpong-grpc-overloaded"],
    });
    const [cell] = results.cells;
    expect(cell?.status).toBe("invalid");
    const codes = cell!.repetitions[0]!.statusCodes;
    expect(codes.UNAVAILABLE).toBeGreaterThan(0);
    expect(codes.OK).toBeGreaterThan(0);
    expect(cell?.reasons.join("; ")).toMatch(/gRPC calls? not OK of \d+ \(UNAVAILABLE: \d+\)/);
  });

  it("a proxy answering gRPC with an HTTP error is invalid at the probe, before any load", async () => {
    const proxies = path.join(tmp, "proxies");
    await mkdir(path.join(proxies, "grpc-nowhere"), { recursive: true });
    const conf = (await readFile(path.join(PROJECT_ROOT, "proxies", "nginx", "nginx-grpc.conf"), "utf8"))
      // A port nothing listens on: nginx answers 502, which gRPC reads as UNAVAILABLE.
      .replace("{{upstreamHost}}:{{upstreamGrpcPort}}", "127.0.0.1:9");
    await writeFile(path.join(proxies, "grpc-nowhere", "nginx.conf"), conf);
    await writeFile(
      path.join(proxies, "grpc-nowhere", "proxy.yml"),
      stringify({
        name: "grpc-nowhere",
        description: "nginx forwarding gRPC to a port nothing listens on.",
        native: {
          binary: "nginx",
          args: ["-p", "{{workdir}}", "-c", "{{workdir}}/nginx.conf", "-e", "stderr"],
          configs: [{ template: "nginx.conf", output: "nginx.conf" }],
          version: { args: ["-v"], pattern: "nginx/([0-9.]+)" },
        },
        protocols: { grpc: {} },
        ready: { timeoutS: 5 },
      }),
    );
    const { results } = await run("nowhere", {
      proxies: ["grpc-nowhere"],
      proxiesDirs: [proxies],
      scenarios: ["pingpong-grpc"],
    });
    const [cell] = results.cells;
    expect(cell?.status).toBe("invalid");
    expect(cell?.reasons.join("; ")).toMatch(
      /probe: gRPC health check .*UNAVAILABLE \(14\): HTTP status 502/,
    );
    expect(cell?.repetitions).toEqual([]);
  });
});
