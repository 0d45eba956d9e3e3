import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { loadProxyFile } from "../../../src/manifests/load.js";
import {
  buildDockerProxySpec,
  imageRef,
  proxyImageTag,
  renderConfigs,
  type ProxyContext,
} from "../../../src/runner/specs.js";
import { parseVariant } from "../../../src/runner/variants.js";
import { buildDockerRunArgs } from "../../../src/runner/docker-runtime.js";
import { imageContexts } from "../../../src/manifests/image-contexts.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

const PROXIES = path.join(PROJECT_ROOT, "proxies");
const IMAGE_ONLY = ["envoy", "yarp", "aspnet-httpclient", "ocelot"];

const ctx: ProxyContext = {
  listenHost: "127.0.0.1",
  listenPort: 18080,
  upstreamHost: "127.0.0.1",
  upstreamPort: 18081,
  upstreamGrpcPort: 18082,
  cpus: [1, 2],
  workdir: "/tmp/pb-run/proxy",
  logFile: "/tmp/pb-run/proxy.log",
};

async function templatesOf(
  dir: string,
  configs: Array<{ template: string }>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const c of configs) out[c.template] = await readFile(path.join(dir, c.template), "utf8");
  return out;
}

/** Every FROM line of a Dockerfile: image reference and stage alias. */
function fromLines(dockerfile: string): Array<{ image: string; alias?: string }> {
  return [...dockerfile.matchAll(/^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/gim)].map((m) => ({
    image: m[1]!,
    ...(m[2] ? { alias: m[2].toLowerCase() } : {}),
  }));
}

describe("proxy images", () => {
  it.each(IMAGE_ONLY)("%s is image-only and its manifest loads", async (name) => {
    const loaded = await loadProxyFile(path.join(PROXIES, name, "proxy.yml"), true);
    expect(loaded.manifest.name).toBe(name);
    expect(loaded.manifest.native).toBeUndefined();
    expect(loaded.manifest.image).toBeDefined();
    expect(existsSync(path.join(PROXIES, name, "Dockerfile"))).toBe(true);
  });

  it("envoy's config renders to YAML with the listener, the cluster and the ports", async () => {
    const loaded = await loadProxyFile(path.join(PROXIES, "envoy", "proxy.yml"), true);
    const image = loaded.manifest.image!;
    const [config] = renderConfigs(loaded, "image", ctx, await templatesOf(loaded.dir, image.configs));
    expect(config?.mount).toBe("/etc/proxybench/envoy.yaml");
    const doc = parseYaml(config!.content) as {
      static_resources: {
        listeners: Array<{ address: { socket_address: { address: string; port_value: string } } }>;
        clusters: Array<{
          load_assignment: {
            endpoints: Array<{
              lb_endpoints: Array<{ endpoint: { address: { socket_address: { port_value: string } } } }>;
            }>;
          };
        }>;
      };
    };
    expect(doc.static_resources.listeners[0]?.address.socket_address).toEqual({
      address: "127.0.0.1",
      port_value: "18080",
    });
    expect(
      doc.static_resources.clusters[0]?.load_assignment.endpoints[0]?.lb_endpoints[0]?.endpoint.address
        .socket_address.port_value,
    ).toBe("18081");
    expect(config!.content).not.toMatch(/access_log/);
    // Worker threads = assigned cores, through the command line.
    const spec = buildDockerProxySpec(loaded, ctx, [config!], "proxybench/envoy:local");
    expect(spec.args.join(" ")).toContain("--concurrency 2");
    const args = buildDockerRunArgs(spec, { name: "proxybench-proxy-envoy-t", user: "1000:1000" });
    expect(args).toContain(
      "type=bind,source=/tmp/pb-run/proxy/envoy.yaml,target=/etc/proxybench/envoy.yaml,readonly",
    );
    expect(args).toContain("--cpuset-cpus");
  });

  it("ocelot's routes render to JSON pointing at the upstream", async () => {
    const loaded = await loadProxyFile(path.join(PROXIES, "ocelot", "proxy.yml"), true);
    const image = loaded.manifest.image!;
    const [config] = renderConfigs(loaded, "image", ctx, await templatesOf(loaded.dir, image.configs));
    const doc = JSON.parse(config!.content) as {
      Routes: Array<{
        UpstreamPathTemplate: string;
        DownstreamHostAndPorts: Array<{ Host: string; Port: string }>;
      }>;
    };
    expect(doc.Routes[0]?.UpstreamPathTemplate).toBe("/{everything}");
    expect(doc.Routes[0]?.DownstreamHostAndPorts).toEqual([{ Host: "127.0.0.1", Port: "18081" }]);
    expect(image.env.OCELOT_CONFIG).toBe(config!.mount);
  });

  it.each(["yarp", "aspnet-httpclient"])(
    "%s gets its listen address and upstream from the environment",
    async (name) => {
      const loaded = await loadProxyFile(path.join(PROXIES, name, "proxy.yml"), true);
      const spec = buildDockerProxySpec(loaded, ctx, [], `proxybench/${name}:local`);
      expect(spec.env).toMatchObject({
        ASPNETCORE_URLS: "http://127.0.0.1:18080",
        UPSTREAM_URL: "http://127.0.0.1:18081",
        DOTNET_PROCESSOR_COUNT: "2",
      });
      const program = await readFile(path.join(PROXIES, name, "Program.cs"), "utf8");
      expect(program).toContain('Environment.GetEnvironmentVariable("UPSTREAM_URL")');
    },
  );

  it("every Dockerfile pins its base images and runs as a non-root user", async () => {
    const dockerfiles = [path.join(PROJECT_ROOT, "upstream", "Dockerfile")];
    for (const entry of await readdir(PROXIES, { withFileTypes: true })) {
      const file = path.join(PROXIES, entry.name, "Dockerfile");
      if (entry.isDirectory() && existsSync(file)) dockerfiles.push(file);
    }
    expect(dockerfiles.length).toBeGreaterThanOrEqual(7);
    for (const file of dockerfiles) {
      const text = await readFile(file, "utf8");
      const stages = fromLines(text);
      const aliases = new Set(stages.flatMap((s) => (s.alias ? [s.alias] : [])));
      for (const { image } of stages) {
        if (aliases.has(image.toLowerCase())) continue;
        // An exact version tag (digits with dots, or a named variant such as distroless
        // "nonroot" with a digest), never "latest" or a bare name.
        expect(image, `${file}: ${image}`).toMatch(
          /:[^@]*\d+\.\d+[^@]*(@sha256:[0-9a-f]{64})?$|@sha256:[0-9a-f]{64}$/,
        );
        expect(image, `${file}: ${image}`).not.toMatch(/:latest\b/);
      }
      const users = [...text.matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]!);
      const last = users[users.length - 1];
      expect(last, `${file}: no USER`).toBeDefined();
      expect(last!.split(":")[0], `${file}: USER ${last}`).toMatch(/^[1-9]\d*$/);
    }
  });
});

describe("the bake file of the run action", () => {
  const hcl = readFileSync(path.join(PROJECT_ROOT, "action", "docker-bake.hcl"), "utf8");
  const action = parseYaml(readFileSync(path.join(PROJECT_ROOT, "action", "action.yml"), "utf8")) as {
    runs: {
      steps: Array<{
        name?: string;
        uses?: string;
        run?: string;
        env?: Record<string, string>;
        with?: Record<string, string>;
      }>;
    };
  };

  it("tags each proxy image the way the runner looks it up", () => {
    const tag = /tags\s*=\s*\["proxybench\/\$\{p\}:\$\{IMAGE_TAG\}"\]/.exec(hcl);
    expect(tag).not.toBeNull();
    // The same reference the runner builds for --image-tag.
    expect(imageRef("envoy", "head")).toBe("proxybench/envoy:head");
  });

  it("builds every proxy but direct, from its own folder, with a cache scope of its own", () => {
    expect(hcl).toMatch(/matrix = \{\s*p = with_images\(PROXIES\)\s*\}/);
    expect(hcl).toMatch(/trimspace\(p\) != "direct"/);
    expect(hcl).toContain('context    = lookup(jsondecode(PROXY_CONTEXTS), p, "${PROXIES_DIR}/${p}")');
    expect(hcl).toContain('cache-from = ["type=gha,scope=${CACHE_SCOPE_PREFIX}-${p}"]');
    expect(hcl).toContain('cache-to   = ["type=gha,mode=max,scope=${CACHE_SCOPE_PREFIX}-${p}"]');
    expect(hcl).toMatch(/group "default" \{\s*targets = concat\(\["proxy"\], /);
  });

  it("the action builds and runs the same tag, from the same proxies folder", () => {
    const bake = action.runs.steps.find((s) => s.uses?.startsWith("docker/bake-action@"));
    const run = action.runs.steps.find((s) => s.run?.includes(" run --runtime docker"));
    expect(bake?.env?.IMAGE_TAG).toBe(
      "${{ inputs.base-dir != '' && format('{0}-head', inputs.image-tag) || inputs.image-tag }}",
    );
    expect(run?.env?.IMAGE_TAG).toBe("${{ inputs.image-tag }}");
    expect(run?.run).toContain('--image-tag "$IMAGE_TAG"');
    expect(bake?.env?.PROXIES).toBe("${{ inputs.proxies }}");
    const contexts = action.runs.steps.find((s) => s.name === "Find the images' folders");
    expect(contexts?.env?.PROXIES).toBe("${{ inputs.proxies }}");
    expect(contexts?.env?.PROXIES_DIR).toContain("inputs.proxies-dir");
    expect(bake?.with).toMatchObject({ source: ".", load: true });
  });

  it("with a base-dir, builds the base's images under <tag>-base and the head's under <tag>-head, which the run's variants use", () => {
    const bakes = action.runs.steps.filter((s) => s.uses?.startsWith("docker/bake-action@"));
    expect(bakes).toHaveLength(2);
    const base = bakes[1] as (typeof bakes)[number] & { if?: string };
    expect(base.if).toBe("${{ inputs.base-dir != '' }}");
    expect(base.env?.IMAGE_TAG).toBe("${{ format('{0}-base', inputs.image-tag) }}");
    const folders = action.runs.steps.filter((s) => s.run?.includes(" images --proxies "));
    expect(folders.map((s) => s.env?.PROXIES_DIR)).toEqual([
      "${{ inputs.proxies-dir != '' && inputs.head-dir != '' && format('{0}/{1}', inputs.head-dir, inputs.proxies-dir) || inputs.proxies-dir }}",
      "${{ inputs.proxies-dir != '' && format('{0}/{1}', inputs.base-dir, inputs.proxies-dir) || '' }}",
    ]);
    const run = action.runs.steps.find((s) => s.run?.includes(" run --runtime docker"));
    expect(run?.run).toContain(
      '${BASE_DIR:+--variant "base:$IMAGE_TAG-base=$BASE_DIR" --variant "head:$IMAGE_TAG-head=$HEAD_DIR"}',
    );
    // The tags the run looks up are the tags built: parse the flags as the CLI does.
    const base0 = parseVariant("base:pb-base=/w/base");
    expect(imageRef("envoy", proxyImageTag({ variants: [base0] }, "base"))).toBe("proxybench/envoy:pb-base");
    expect(run?.env?.VARIANT_PROXIES_DIR).toBe("${{ inputs.base-dir != '' && inputs.proxies-dir || '' }}");
    expect(run?.run).toContain('${VARIANT_PROXIES_DIR:+--variant-proxies-dir "$VARIANT_PROXIES_DIR"}');
  });
});

describe("the folder each image is built from: proxies-dir overrides built-ins by name", () => {
  const action = parseYaml(readFileSync(path.join(PROJECT_ROOT, "action", "action.yml"), "utf8")) as {
    runs: {
      steps: Array<{ id?: string; uses?: string; run?: string; if?: string; env?: Record<string, string> }>;
    };
  };
  const caller = parseYaml(
    readFileSync(path.join(PROJECT_ROOT, "workflows", "pr-benchmark.yml"), "utf8"),
  ) as {
    jobs: { bench: { with: { proxies: string; "proxies-dir": string } } };
  };

  /** A checkout of the caller's repository: its proxies-dir holds its own nginx only. */
  async function checkout(): Promise<string> {
    const root = await mkdtemp(path.join(tmpdir(), "pb-contexts-"));
    const own = path.join(root, caller.jobs.bench.with["proxies-dir"], "nginx");
    await cp(path.join(PROXIES, "nginx"), own, { recursive: true });
    await writeFile(path.join(own, "Dockerfile"), "FROM nginx:1.28.0-alpine\nUSER 101\n");
    return root;
  }

  it("workflows/pr-benchmark.yml builds: its nginx from its folder, haproxy, envoy and yarp from the built-ins", async () => {
    const root = await checkout();
    try {
      const proxies = caller.jobs.bench.with.proxies.split(",");
      expect(proxies).toEqual(["nginx", "haproxy", "envoy", "yarp"]);
      const dir = path.join(root, caller.jobs.bench.with["proxies-dir"]);
      const contexts = await imageContexts(proxies, { proxiesDirs: [dir] });
      expect(contexts).toEqual({
        nginx: path.join(dir, "nginx"),
        haproxy: path.join(PROXIES, "haproxy"),
        envoy: path.join(PROXIES, "envoy"),
        yarp: path.join(PROXIES, "yarp"),
      });
      // Every context is a folder Buildx can build: it has the Dockerfile.
      for (const context of Object.values(contexts))
        expect(existsSync(path.join(context, "Dockerfile"))).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("leaves out what has no image (direct), refuses an unknown proxy by name, ignores a folder the base lacks", async () => {
    expect(await imageContexts(["direct", "envoy"], {})).toEqual({ envoy: path.join(PROXIES, "envoy") });
    await expect(imageContexts(["envoy", "nginy"], {})).rejects.toThrow(/unknown proxy 'nginy'/);
    const missing = path.join(tmpdir(), "pb-no-such-folder", "proxies");
    expect(await imageContexts(["nginx"], { proxiesDirs: [missing] })).toEqual({
      nginx: path.join(PROXIES, "nginx"),
    });
  });

  it("the CLI writes the contexts as a step output, and the bake steps build from them", async () => {
    const root = await checkout();
    try {
      const output = path.join(root, "github-output");
      await writeFile(output, "");
      const dir = path.join(root, "proxies");
      await promisify(execFile)(
        process.execPath,
        [
          path.join(PROJECT_ROOT, "bin", "proxybench.js"),
          "images",
          "--proxies",
          "nginx,envoy",
          "--proxies-dir",
          dir,
          "--github-output",
          "contexts",
        ],
        { env: { ...process.env, GITHUB_OUTPUT: output } },
      );
      const line = (await readFile(output, "utf8")).split("\n")[0]!; // then contexts-coprocessors
      expect(line.startsWith("contexts=")).toBe(true);
      expect(JSON.parse(line.slice("contexts=".length))).toEqual({
        nginx: path.join(dir, "nginx"),
        envoy: path.join(PROXIES, "envoy"),
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
    const steps = action.runs.steps;
    const head = steps.find((s) => s.id === "head-contexts");
    const base = steps.find((s) => s.id === "base-contexts");
    expect(head?.run).toContain('images --proxies "$PROXIES"');
    expect(head?.run).toContain("--github-output contexts");
    expect(base?.if).toBe("${{ inputs.base-dir != '' }}");
    const bakes = steps.filter((s) => s.uses?.startsWith("docker/bake-action@"));
    expect(bakes.map((b) => b.env?.PROXY_CONTEXTS)).toEqual([
      "${{ steps.head-contexts.outputs.contexts }}",
      "${{ steps.base-contexts.outputs.contexts }}",
    ]);
    const hcl = readFileSync(path.join(PROJECT_ROOT, "action", "docker-bake.hcl"), "utf8");
    expect(hcl).toContain('context    = lookup(jsondecode(PROXY_CONTEXTS), p, "${PROXIES_DIR}/${p}")');
  });
});
