import { describe, expect, it } from "vitest";
import type { LoadedProxy } from "../../../src/manifests/load.js";
import { ProxyManifest, ScenarioManifest } from "../../../src/manifests/schema.js";
import {
  buildDockerProxySpec,
  buildProxySpec,
  buildSidecarSpec,
  buildUpstreamSpec,
  imageRef,
  proxyImageTag,
  renderConfigs,
  type ProxyContext,
} from "../../../src/runner/specs.js";
import { limitedCommand } from "../../../src/runner/native-runtime.js";

const proxy: LoadedProxy = {
  dir: "/pb/proxies/nginx",
  file: "/pb/proxies/nginx/proxy.yml",
  builtIn: true,
  manifest: ProxyManifest.parse({
    name: "nginx",
    description: "d",
    native: {
      binary: "nginx",
      args: ["-p", "{{workdir}}", "-c", "{{workdir}}/nginx.conf"],
      env: { WORKERS: "{{cores}}" },
      configs: [{ template: "nginx.conf", output: "nginx.conf" }],
      version: { args: ["-v"], pattern: "nginx/(\\S+)" },
    },
    image: {
      args: ["--port", "{{listenPort}}"],
      env: { UPSTREAM: "http://{{upstreamHost}}:{{upstreamPort}}" },
      configs: [{ template: "nginx.conf", output: "conf/nginx.conf", mount: "/etc/nginx/nginx.conf" }],
    },
  }),
};

const LISTEN = ["--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0"];

const ctx: ProxyContext = {
  listenHost: "127.0.0.1",
  listenPort: 8001,
  upstreamHost: "127.0.0.1",
  upstreamPort: 9001,
  upstreamGrpcPort: 9002,
  cpus: [2, 3],
  workdir: "/r/work/p-nginx",
  logFile: "/r/logs/p-nginx.log",
};

describe("process specs", () => {
  it("native: rendered args and env, pinned to the proxy cores, cwd in the workdir", () => {
    expect(buildProxySpec(proxy, ctx, "/usr/sbin/nginx", "native")).toEqual({
      name: "proxy:nginx",
      command: "/usr/sbin/nginx",
      args: ["-p", "/r/work/p-nginx", "-c", "/r/work/p-nginx/nginx.conf"],
      env: { WORKERS: "2" },
      cwd: "/r/work/p-nginx",
      cpus: [2, 3],
      logFile: "/r/logs/p-nginx.log",
    });
  });

  it("docker: the image, rendered args and env, configs mounted where the manifest says", () => {
    const configs = renderConfigs(proxy, "image", ctx, {
      "nginx.conf": "listen {{listenPort}}; workers {{cores}};",
    });
    expect(configs).toEqual([
      {
        output: "/r/work/p-nginx/conf/nginx.conf",
        content: "listen 8001; workers 2;",
        mount: "/etc/nginx/nginx.conf",
      },
    ]);
    expect(buildDockerProxySpec(proxy, ctx, configs, imageRef("nginx", undefined, {}))).toEqual({
      name: "proxy:nginx",
      command: "proxybench/nginx:local",
      args: ["--port", "8001"],
      env: { UPSTREAM: "http://127.0.0.1:9001" },
      cwd: "/r/work/p-nginx",
      cpus: [2, 3],
      logFile: "/r/logs/p-nginx.log",
      files: ["/r/work/p-nginx/conf/nginx.conf"],
      mounts: [{ host: "/r/work/p-nginx/conf/nginx.conf", container: "/etc/nginx/nginx.conf" }],
    });
  });

  it.each([
    [undefined, {}, "proxybench/envoy:local"],
    [undefined, { PROXYBENCH_IMAGE_TAG: "ci-123" }, "proxybench/envoy:ci-123"],
    ["v2", { PROXYBENCH_IMAGE_TAG: "ci-123" }, "proxybench/envoy:v2"],
  ])("imageRef tag %s env %j", (tag, env, expected) => {
    expect(imageRef("envoy", tag, env)).toBe(expected);
  });

  it("a variant's own image tag wins over the run's, which holds for the variants without one", () => {
    const settings = {
      imageTag: "ci",
      variants: [
        { name: "base", dir: "/b", imageTag: "pb-base" },
        { name: "head", dir: "/h" },
      ],
    };
    expect(imageRef("nginx", proxyImageTag(settings, "base"), {})).toBe("proxybench/nginx:pb-base");
    expect(proxyImageTag(settings, "head")).toBe("ci");
    expect(proxyImageTag(settings, undefined)).toBe("ci");
    expect(proxyImageTag({ variants: settings.variants }, "head")).toBeUndefined();
  });

  it("a config output may not leave the workdir", () => {
    const bad = {
      ...proxy,
      manifest: {
        ...proxy.manifest,
        native: { ...proxy.manifest.native!, configs: [{ template: "t", output: "../x" }] },
      },
    };
    expect(() => renderConfigs(bad, "native", ctx, { t: "" })).toThrow(/leaves the workdir/);
  });

  it("unknown placeholders in a template name the template file", () => {
    expect(() => renderConfigs(proxy, "native", ctx, { "nginx.conf": "{{nope}}" })).toThrow(
      "/pb/proxies/nginx/nginx.conf: unknown placeholder {{nope}}",
    );
  });

  const scenario = (upstream: object) =>
    ScenarioManifest.parse({
      name: "s",
      description: "d",
      requests: [{ path: "/a" }],
      loads: [{ label: "l", model: "constant-vus" }],
      upstream,
    });
  it.each([
    [{}, [...LISTEN]],
    [{ latencyMs: 75 }, [...LISTEN, "--latency", "75ms"]],
    [{ latencyMs: 0, maxRps: 5000 }, [...LISTEN, "--max-rps", "5000"]],
  ])("upstream %j", (upstream, args) => {
    expect(buildUpstreamSpec("/bin/up", scenario(upstream), [1], "/r/up.log")).toEqual({
      name: "upstream",
      command: "/bin/up",
      args,
      cpus: [1],
      logFile: "/r/up.log",
    });
  });

  it("in a run with TLS, gRPC and HTTP/1.1 over TLS too, with the run's certificate", () => {
    const tls = { cert: "/r/tls/server.pem", key: "/r/tls/server.key" };
    expect(buildUpstreamSpec("/bin/up", scenario({}), [1], "/r/up.log", tls).args).toEqual([
      ...LISTEN,
      "--grpcs-listen",
      "127.0.0.1:0",
      "--https-listen",
      "127.0.0.1:0",
      "--tls-cert",
      "/r/tls/server.pem",
      "--tls-key",
      "/r/tls/server.key",
    ]);
  });
});

describe("sidecar and memory cap (the extensibility study)", () => {
  const withSidecar: LoadedProxy = {
    ...proxy,
    manifest: ProxyManifest.parse({
      ...proxy.manifest,
      memoryLimitBytes: 1073741824,
      sidecar: {
        name: "coprocessor-node",
        binary: "node",
        args: ["/c/node/server.js", "--listen", "127.0.0.1:{{sidecarPort}}"],
        cpus: [0],
      },
    }),
  };

  it("the sidecar: its args rendered with its port, on its own cores, with the proxy's cap", () => {
    const spec = buildSidecarSpec(
      withSidecar,
      { ...ctx, sidecarPort: 7001 },
      "/usr/bin/node",
      "/r/logs/cp.log",
    );
    expect(spec).toMatchObject({
      name: "sidecar:coprocessor-node",
      command: "/usr/bin/node",
      args: ["/c/node/server.js", "--listen", "127.0.0.1:7001"],
      cpus: [0],
      logFile: "/r/logs/cp.log",
      memoryBytes: 1073741824,
    });
    expect(buildProxySpec(withSidecar, ctx, "/usr/sbin/nginx", "native").memoryBytes).toBe(1073741824);
    expect(buildProxySpec(proxy, ctx, "/usr/sbin/nginx", "native").memoryBytes).toBeUndefined();
  });

  it("natively the cap is prlimit's data segment limit around the command", () => {
    expect(limitedCommand("/usr/bin/node", ["s.js"], 1024)).toEqual([
      "prlimit",
      ["--data=1024", "--", "/usr/bin/node", "s.js"],
    ]);
    expect(limitedCommand("/usr/bin/node", ["s.js"])).toEqual(["/usr/bin/node", ["s.js"]]);
  });
});
