import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import * as engines from "../../../../src/engines/index.js";
import { readResults } from "../../../../src/results/io.js";
import { runBenchmark } from "../../../../src/measures/wall-clock/run.js";
import { writeRunCertificates } from "../../../../src/runner/tls.js";
import type { RunRequest } from "../../../../src/runner/settings.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";
import { liveProcesses } from "../../../../src/util/processes.js";
import { collectText, descendants, measuredStatus } from "../../../support/runner/helpers.js";

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

/** A copy of the study's pingpong-rest as `name`, with `change` applied. */
async function restVariant(name: string, change: (manifest: Record<string, unknown>) => void): Promise<void> {
  const dir = path.join(scenarios, name);
  await cp(path.join(scenarios, "pingpong-rest"), dir, { recursive: true });
  const manifest = parse(await readFile(path.join(dir, "scenario.yml"), "utf8")) as Record<string, unknown>;
  manifest.name = name;
  change(manifest);
  await writeFile(path.join(dir, "scenario.yml"), stringify(manifest));
}

async function run(name: string, request: Partial<RunRequest>) {
  const out = path.join(tmp, name);
  const outcome = await runBenchmark(
    // No retries of noisy repetitions: a busy machine would triple the time, and noisy is measured.
    {
      repetitions: 1,
      durationS: 1,
      warmupS: 0.5,
      retries: 0,
      cpus,
      out,
      scenariosDirs: [scenarios],
      ...request,
    },
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
  await restVariant("pingpong-rest-h2", (m) => {
    m.protocol = "h2";
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
  it("gRPC and REST direct and through nginx, HAProxy and grpc-gateway (its gRPC path forwarded, its REST transcoded)", async () => {
    const { results } = await run("all", {
      proxies: ["direct", "nginx", "haproxy", "grpc-gateway"],
      scenarios: ["pingpong-grpc", "pingpong-rest"],
      durationS: 1,
      warmupS: 0,
    });
    expect(results.cells.map((c) => `${c.id} ${measuredStatus(c)}`)).toEqual([
      "pingpong-grpc/default/direct/k6 measured",
      "pingpong-grpc/default/nginx/k6 measured",
      "pingpong-grpc/default/haproxy/k6 measured",
      "pingpong-grpc/default/grpc-gateway/k6 measured",
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
    expect(results.skipped).toEqual([]);
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

  it("--tls through nginx: HTTP/1.1 as https, gRPC as grpcs, and an h2 scenario, each over TLS trusting only the run's CA", async () => {
    const { outcome, results } = await run("tls", {
      proxies: ["nginx"],
      scenarios: ["pingpong-grpc", "pingpong-rest", "pingpong-rest-h2"],
      tls: true,
      durationS: 1,
      warmupS: 0,
    });
    expect(results.cells.map((c) => `${c.id} ${c.protocol ?? "http1"} ${measuredStatus(c)}`)).toEqual([
      "pingpong-grpc/default/nginx/k6 grpc measured",
      "pingpong-grpc/default/nginx+grpcs/k6 grpcs measured",
      "pingpong-rest/default/nginx/k6 http1 measured",
      "pingpong-rest/default/nginx+https/k6 https measured",
      "pingpong-rest-h2/default/nginx+h2/k6 h2 measured",
    ]);
    for (const c of results.cells) {
      for (const r of c.repetitions) {
        expect(r.requests).toBeGreaterThan(0);
        expect(r.statusCodes).toEqual({ [c.scenario === "pingpong-grpc" ? "OK" : "200"]: r.requests });
      }
    }
    const tlsSeen = results.environment.tls ?? {};
    expect(Object.keys(tlsSeen).sort()).toEqual(["nginx/grpcs", "nginx/h2", "nginx/https"]);
    expect(tlsSeen["nginx/h2"]?.version).toMatch(/^TLSv1\.[23]$/);
    expect(tlsSeen["nginx/h2"]?.alpn).toBe("h2");
    expect(tlsSeen["nginx/https"]?.alpn).toBe("http/1.1");
    expect(tlsSeen["nginx/grpcs"]?.cipher).toMatch(/^TLS_/);
    expect(results.settings.tls).toBe(true);
    const rendered = await readFile(
      path.join(outcome.dir, "work", "pingpong-grpc-default-grpcs-nginx", "nginx.conf"),
      "utf8",
    );
    expect(rendered).toContain("grpc_pass grpcs://grpc_backend;");
    expect(rendered).toContain(`grpc_ssl_trusted_certificate ${path.join(outcome.dir, "tls", "ca.pem")};`);
  });

  it("a proxy serving a certificate the run's CA did not sign fails, naming the proxy and the certificate", async () => {
    const proxies = path.join(tmp, "proxies-tls");
    const own = await writeRunCertificates(path.join(tmp, "not-the-run"));
    await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(proxies, "nginx-own-cert"), {
      recursive: true,
    });
    const manifestFile = path.join(proxies, "nginx-own-cert", "proxy.yml");
    const manifest = parse(await readFile(manifestFile, "utf8")) as Record<string, unknown>;
    manifest.name = "nginx-own-cert";
    delete manifest.extensions;
    await writeFile(manifestFile, stringify(manifest));
    const listen = path.join(proxies, "nginx-own-cert", "listen-https.conf");
    await writeFile(
      listen,
      (await readFile(listen, "utf8")).replace("{{tlsCert}}", own.cert).replace("{{tlsKey}}", own.key),
    );
    const { outcome, results } = await run("own-cert", {
      proxies: ["nginx-own-cert"],
      proxiesDirs: [proxies],
      scenarios: ["pingpong-rest"],
      tls: true,
      durationS: 1,
      warmupS: 0,
    });
    const cell = results.cells.find((c) => c.protocol === "https");
    expect(cell?.status).toBe("failed");
    expect(cell?.reasons.join("; ")).toMatch(
      new RegExp(
        `TLS handshake with nginx-own-cert at 127\\.0\\.0\\.1:\\d+ failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE; it should serve the run's certificate ${path.join(outcome.dir, "tls", "server.pem")}`,
      ),
    );
    expect(cell?.repetitions).toEqual([]);
  });

  it("h2c through nginx (listen http2) at h2load's max rate, every response a counted 200", async () => {
    const { results } = await run("h2c", {
      proxies: ["nginx"],
      scenarios: ["passthrough-h2c"],
      durationS: 1,
      warmupS: 0,
    });
    const [cell] = results.cells;
    expect(`${cell?.id} ${cell?.protocol} ${measuredStatus(cell!)}`).toBe(
      "passthrough-h2c/max/nginx/h2load h2c measured",
    );
    const [rep] = cell!.repetitions;
    expect(rep!.requests).toBeGreaterThan(0);
    expect(rep!.statusCodes).toEqual({ "200": rep!.requests });
    expect(rep!.latencyMs.p50).toBeGreaterThan(0);
  });
});
