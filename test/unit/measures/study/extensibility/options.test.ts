import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadProxyFile } from "../../../../../src/manifests/load.js";
import { ProxyManifest, ScenarioManifest } from "../../../../../src/manifests/schema.js";
import { coprocessorCores } from "../../../../../src/measures/study/extensibility/run.js";
import {
  BASELINE,
  derivedManifest,
  isGatewayTest,
  planOptions,
  variantScenario,
  type CoprocessorChoice,
} from "../../../../../src/measures/study/extensibility/options.js";
import { testGroup } from "../../../../../src/measures/study/extensibility/report.js";
import { PROJECT_ROOT } from "../../../../../src/util/paths.js";

const NGINX = path.join(PROJECT_ROOT, "proxies", "nginx", "proxy.yml");
const NJS = "/usr/lib/nginx/modules/ngx_http_js_module.so";
const HIVE = path.join(PROJECT_ROOT, "proxies", "hive-gateway", "proxy.yml");
const ROUTER = path.join(PROJECT_ROOT, "proxies", "apollo-router", "proxy.yml");
const LICENCE = "APOLLO_ROUTER_LICENSE";

const coprocessors: CoprocessorChoice[] = [
  {
    name: "go",
    dir: "/c/go",
    binary: "/bin/go-cp",
    args: ["--listen", "127.0.0.1:{{sidecarPort}}"],
    env: {},
  },
  { name: "node", dir: "/c/node", binary: "/usr/bin/node", args: ["{{dir}}/server.js"], env: {} },
  { name: "csharp", dir: "/c/csharp", args: [], env: {}, unavailable: "image only: no native start here" },
];

describe("extensibility options: which rows a gateway has for a test", () => {
  it("NGINX static header: config, njs and every coprocessor that runs here; C# image only", async () => {
    const nginx = await loadProxyFile(NGINX, true);
    const plan = planOptions(nginx, "static-header", coprocessors, () => true);
    expect(plan.options.map((o) => o.name)).toEqual(["config", "script", "go", "node"]);
    expect(plan.skipped).toEqual([{ option: "csharp", reason: "image only: no native start here" }]);
    const script = plan.options.find((o) => o.name === "script");
    expect(script?.configs.map((c) => c.output)).toEqual([
      "extension-main.conf",
      "extension-http.conf",
      "extension-location.conf",
    ]);
  });

  it("a test the config cannot do, and a missing module: blank rows with the reason", async () => {
    const nginx = await loadProxyFile(NGINX, true);
    const plan = planOptions(nginx, "client-awareness", coprocessors, (f) => f !== NJS);
    expect(plan.options.map((o) => o.name)).toEqual(["go", "node"]);
    const reasons = Object.fromEntries(plan.skipped.map((s) => [s.option, s.reason]));
    expect(reasons.config).toMatch(/does not validate JWTs/);
    expect(reasons.script).toMatch(
      /needs \/usr\/lib\/nginx\/modules\/ngx_http_js_module\.so \(Debian package libnginx-mod-http-js/,
    );
  });

  it("an HTTP proxy has the HTTP tests, a GraphQL gateway the GraphQL ones", async () => {
    const nginx = (await loadProxyFile(NGINX, true)).manifest;
    const hive = (await loadProxyFile(HIVE, true)).manifest;
    const tests = ["static-header", "graphql-static-header", "graphql-guid-response"];
    expect(tests.filter((t) => isGatewayTest(nginx, t))).toEqual(["static-header"]);
    expect(tests.filter((t) => isGatewayTest(hive, t))).toEqual([
      "graphql-static-header",
      "graphql-guid-response",
    ]);
  });

  it("Hive Gateway's GraphQL GUID test: its plugin and every coprocessor; its configuration cannot", async () => {
    const hive = await loadProxyFile(HIVE, true);
    const plan = planOptions(hive, "graphql-guid-response", coprocessors, () => true);
    expect(plan.options.map((o) => o.name)).toEqual(["script", "go", "node"]);
    expect(plan.skipped.map((s) => s.option)).toEqual(["config", "csharp"]);
    const go = plan.options.find((o) => o.name === "go");
    expect(go?.configs.map((c) => c.output)).toEqual(["coprocessor.mjs", "extension.mjs"]);
  });

  it("a gateway without extension points: every row skipped, naming its manifest", async () => {
    const nginx = await loadProxyFile(NGINX, true);
    const bare = { ...nginx, manifest: { ...nginx.manifest, extensions: undefined } };
    const plan = planOptions(bare, "static-header", coprocessors.slice(0, 1), () => true);
    expect(plan.options).toEqual([]);
    expect(plan.skipped.map((s) => s.option)).toEqual(["config", "script", "go"]);
    expect(plan.skipped[0]?.reason).toContain("nginx has no config extension point in");
  });
});

describe("extensibility manifests: what a row runs", () => {
  it("a coprocessor row: the gateway's configs plus the option's, the coprocessor as sidecar, the cap", async () => {
    const nginx = await loadProxyFile(NGINX, true);
    const option = planOptions(nginx, "static-header", coprocessors, () => true).options.find(
      (o) => o.name === "node",
    );
    const m = derivedManifest(nginx.manifest, option, { memoryLimitBytes: 1 << 30, sidecarCpus: [0] });
    expect(ProxyManifest.safeParse(m).success).toBe(true);
    expect(m.native?.configs.map((c) => c.output)).toEqual([
      "nginx.conf",
      "listen.conf",
      "extension-http.conf",
      "extension-server.conf",
      "extension-location.conf",
    ]);
    expect(m.sidecar).toMatchObject({
      name: "coprocessor-node",
      binary: "/usr/bin/node",
      args: ["/c/node/server.js"],
      cpus: [0],
    });
    expect(m.memoryLimitBytes).toBe(1 << 30);
    expect(m.tuning).toMatchObject({ extension: "node", coprocessorCores: "0" });
    expect(m.image).toBeUndefined();
    expect(m.extensions).toBeUndefined();
    const base = derivedManifest(nginx.manifest, undefined, { memoryLimitBytes: 1 << 30, sidecarCpus: [0] });
    expect(base.native?.configs.map((c) => c.output)).toEqual(["nginx.conf", "listen.conf"]);
    expect(base.sidecar).toBeUndefined();
    expect(base.tuning).toMatchObject({ extension: BASELINE });
  });

  it("the effect check goes on every row but the baseline, with the option's name", () => {
    const scenario = ScenarioManifest.parse({
      name: "static-header",
      description: "d",
      engine: "vegeta",
      requests: [{ path: "/echo/headers" }],
      check: { status: [200] },
      loads: [{ label: "100rps", model: "constant-arrival-rate", rate: 100 }],
    });
    const effect = { bodyJson: { source: "{{option}}" } };
    expect(variantScenario(scenario, effect, BASELINE, "study.yml").check.bodyJson).toBeUndefined();
    expect(variantScenario(scenario, effect, "go", "study.yml").check.bodyJson).toEqual({ source: "go" });
    expect(() => variantScenario(scenario, { distinctGuidHeaders: "ten" }, "go", "study.yml")).toThrow(
      /study\.yml: extensibility\.effects\.static-header: /,
    );
  });

  it("the coprocessor's core: a free one, else the load generator's", () => {
    expect(coprocessorCores({ loadgen: [0], proxy: [1] }, 2)).toEqual([0]);
    expect(coprocessorCores({ loadgen: [0], proxy: [1] }, 3)).toEqual([2]);
    expect(coprocessorCores({ loadgen: [0, 1], proxy: [2] }, 4)).toEqual([3]);
  });

  it("the report: one row per option, the missing ones as skipped with their reason", () => {
    const group = testGroup({
      test: "guid-response",
      gateway: "nginx",
      options: ["script"],
      skipped: [{ option: "config", reason: "no GUIDs in config" }],
    });
    expect(group.columns.map((c) => [c.proxy, c.status])).toEqual([
      ["baseline", "failed"],
      ["script", "failed"],
      ["config", "skipped"],
    ]);
    expect(group.baselineProblem).toBe("the baseline is failed");
  });
});

describe("Apollo Router's rows: the licence its enterprise plugins need", () => {
  it("without a licence: config and Rhai run, the coprocessors and Rhai's JWT check are skipped with the reason", async () => {
    const router = await loadProxyFile(ROUTER, true);
    const header = planOptions(router, "graphql-static-header", coprocessors, () => true, {});
    expect(header.options.map((o) => o.name)).toEqual(["config", "script"]);
    const reasons = Object.fromEntries(header.skipped.map((s) => [s.option, s.reason]));
    expect(reasons.go).toMatch(
      /coprocessor plugin is a GraphOS Enterprise feature.*\(set APOLLO_ROUTER_LICENSE to run it\)$/,
    );
    expect(reasons.node).toBe(reasons.go);
    expect(reasons.csharp).toBe(reasons.go);
    const client = planOptions(router, "graphql-client-awareness", coprocessors, () => true, {});
    expect(client.options).toEqual([]);
    expect(client.skipped.find((s) => s.option === "script")?.reason).toMatch(
      /authentication plugin.*APOLLO_ROUTER_LICENSE/,
    );
  });

  it("with a licence: every coprocessor that runs here, and Rhai's client awareness with its JWKS", async () => {
    const router = await loadProxyFile(ROUTER, true);
    const env = { [LICENCE]: "a-licence" };
    const guid = planOptions(router, "graphql-guid-response", coprocessors, () => true, env);
    expect(guid.options.map((o) => o.name)).toEqual(["script", "go", "node"]);
    const client = planOptions(router, "graphql-client-awareness", coprocessors, () => true, env);
    expect(client.options.map((o) => o.name)).toEqual(["script", "go", "node"]);
    expect(client.options[0]?.configs.map((c) => c.output)).toEqual([
      "router.yaml",
      "client-awareness.rhai",
      "jwks.json",
    ]);
  });
});

describe("extensibility manifests under --runtime docker: the gateway's image", () => {
  it("an option's router.yaml replaces the image's in place, its mount kept; a new file is mounted too", async () => {
    const router = await loadProxyFile(ROUTER, true);
    const option = planOptions(router, "graphql-static-header", coprocessors, () => true).options.find(
      (o) => o.name === "script",
    );
    const settings = { memoryLimitBytes: 1 << 30, sidecarCpus: [0], runtime: "docker" as const };
    const m = derivedManifest(router.manifest, option, settings);
    expect(ProxyManifest.safeParse(m).success).toBe(true);
    expect(m.native).toBeUndefined();
    expect(m.image?.configs).toEqual([
      {
        template: "extensibility/rhai-static-header.router.yaml",
        output: "router.yaml",
        mount: "/etc/proxybench/router.yaml",
      },
      {
        template: "supergraph.graphql",
        output: "supergraph.graphql",
        mount: "/etc/proxybench/supergraph.graphql",
      },
      {
        template: "extensibility/static-header.rhai",
        output: "static-header.rhai",
        mount: "/etc/proxybench/static-header.rhai",
      },
    ]);
    expect(m.tuning).toMatchObject({ extension: "script" });
    expect(String(m.tuning.memoryLimit)).toMatch(/docker --memory/);
  });

  it("natively the option's config replaces the gateway's of the same output (one router.yaml)", async () => {
    const router = await loadProxyFile(ROUTER, true);
    const option = planOptions(router, "graphql-guid-response", coprocessors, () => true).options[0];
    const m = derivedManifest(router.manifest, option, { memoryLimitBytes: 1 << 30, sidecarCpus: [0] });
    expect(m.image).toBeUndefined();
    expect(m.native?.configs.map((c) => c.template)).toEqual([
      "extensibility/rhai-guid-response.router.yaml",
      "supergraph.graphql",
      "extensibility/guid-response.rhai",
    ]);
  });

  it("a gateway without an image cannot run under docker, and says so", async () => {
    const hive = await loadProxyFile(HIVE, true);
    expect(() =>
      derivedManifest(hive.manifest, undefined, { memoryLimitBytes: 1, sidecarCpus: [0], runtime: "docker" }),
    ).toThrow(/hive-gateway: --runtime docker: it has no image/);
  });
});
