import { describe, expect, it } from "vitest";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LoadedProxy } from "../../../src/manifests/load.js";
import { ProxyManifest } from "../../../src/manifests/schema.js";
import type { ActiveCell } from "../../../src/runner/context.js";
import type { BlockContext } from "../../../src/measures/wall-clock/context.js";
import { buildDockerRunArgs, DockerRuntime } from "../../../src/runner/docker-runtime.js";
import { NativeRuntime } from "../../../src/runner/native-runtime.js";
import { sidecarGone, startSidecar } from "../../../src/runner/sidecar.js";
import { buildSidecarSpec, type ProxyContext } from "../../../src/runner/specs.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

// A coprocessor sidecar under --runtime docker: started from its image (the docker stand-in runs
// the real Node coprocessor as the "container"), pinned, capped, on the host network on the port
// the runner chose, and reported when it dies, as a native one is.

const FAKE_DOCKER = path.join(PROJECT_ROOT, "test", "support", "actions", "fake-docker.sh");
const IMAGE = "proxybench/coprocessor-node:t";

function gateway(sidecar: Record<string, unknown>): LoadedProxy {
  const manifest = ProxyManifest.parse({
    name: "gw",
    description: "a gateway with a coprocessor",
    image: { configs: [] },
    memoryLimitBytes: 1073741824,
    sidecar,
  });
  return { manifest, dir: "/p/gw", file: "/p/gw/proxy.yml", builtIn: false };
}

const dockerSidecar = {
  name: "coprocessor-node",
  image: IMAGE,
  args: ["--listen", "127.0.0.1:{{sidecarPort}}"],
  cpus: [0],
};

const pctx: ProxyContext = {
  listenHost: "127.0.0.1",
  listenPort: 0,
  upstreamHost: "127.0.0.1",
  upstreamPort: 18081,
  upstreamGrpcPort: 18082,
  cpus: [1],
  workdir: "/tmp/pb-run/work/gw",
  logFile: "/tmp/pb-run/gw.log",
  sidecarPort: 18090,
};

describe("a coprocessor sidecar's container (pure)", () => {
  it("its image, pinned to its core, the memory cap, the host network, listening on the runner's port", () => {
    const proxy = gateway(dockerSidecar);
    const spec = buildSidecarSpec(proxy, pctx, IMAGE, "/l/cp.log", true);
    const args = buildDockerRunArgs(spec, { name: "proxybench-sidecar-t", user: "1000:1000" });
    const value = (flag: string) => args[args.indexOf(flag) + 1];
    expect(value("--cpuset-cpus")).toBe("0");
    expect(value("--memory")).toBe("1073741824");
    expect(value("--memory-swap")).toBe("1073741824");
    expect(value("--network")).toBe("host");
    expect(args.slice(args.indexOf(IMAGE))).toEqual([IMAGE, "--listen", "127.0.0.1:18090"]);
    // The image's own working folder holds its files (node server.js): none is imposed.
    expect(args).not.toContain("--workdir");
    expect(args).not.toContain("--mount");
  });

  it("the port by env for an image that reads it there (Kestrel's ASPNETCORE_URLS)", () => {
    const csharp = {
      name: "coprocessor-csharp",
      image: "proxybench/coprocessor-csharp:t",
      env: { ASPNETCORE_URLS: "http://127.0.0.1:{{sidecarPort}}" },
      cpus: [2],
    };
    const proxy = gateway(csharp);
    const spec = buildSidecarSpec(proxy, pctx, csharp.image, "/l", true);
    const args = buildDockerRunArgs(spec, { name: "n", user: "1000:1000" });
    expect(args).toContain("ASPNETCORE_URLS=http://127.0.0.1:18090");
    expect(args[args.length - 1]).toBe("proxybench/coprocessor-csharp:t");
  });

  it("a sidecar needs a binary or an image", () => {
    const parsed = ProxyManifest.safeParse({
      name: "gw",
      description: "d",
      image: { configs: [] },
      sidecar: { name: "coprocessor-x" },
    });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("a sidecar needs a 'binary' or an 'image'");
  });
});

describe("a coprocessor sidecar's lifecycle under docker, with the docker stand-in", () => {
  async function setup() {
    const root = await mkdtemp(path.join(tmpdir(), "pb-sidecar-docker-"));
    const state = path.join(root, "state");
    const images = path.join(root, "images");
    await mkdir(state);
    await mkdir(images);
    await mkdir(path.join(root, "logs"));
    // The image's "entrypoint": the real Node coprocessor.
    const program = path.join(images, IMAGE.replaceAll("/", "_").replaceAll(":", "_"));
    const server = path.join(PROJECT_ROOT, "coprocessors", "node", "server.js");
    await writeFile(program, `#!/bin/sh\nexec "${process.execPath}" "${server}" "$@"\n`);
    await chmod(program, 0o755);
    process.env.FAKE_DOCKER_STATE = state;
    process.env.FAKE_DOCKER_IMAGES = images;
    const runtime = new DockerRuntime({ docker: FAKE_DOCKER, runId: "sc", user: "1000:1000" });
    const ctx = {
      runtime,
      upstreamRuntime: new NativeRuntime(),
      dir: root,
      signal: new AbortController().signal,
    } as unknown as BlockContext;
    const cleanup = async () => {
      delete process.env.FAKE_DOCKER_STATE;
      delete process.env.FAKE_DOCKER_IMAGES;
      await rm(root, { recursive: true, force: true });
    };
    return { root, state, ctx, cleanup };
  }

  function cell(proxy: LoadedProxy): ActiveCell {
    return { planned: { proxy }, cell: { logs: [] }, problems: [], stopped: false } as unknown as ActiveCell;
  }

  it("starts from its image, answers on its port; a dead container is the reason the repetition is invalid", async () => {
    const { root, state, ctx, cleanup } = await setup();
    try {
      const a = cell(gateway(dockerSidecar));
      const started = await startSidecar(a, ctx, { ...pctx, workdir: root }, "block-gw");
      expect(started.problem).toBeUndefined();
      const port = started.port!;
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      const run = (await readFile(path.join(state, "calls"), "utf8"))
        .split("\n")
        .find((l) => l.startsWith("run "));
      expect(run).toContain("--cpuset-cpus 0");
      expect(run).toContain("--memory 1073741824");
      expect(run).toContain("--network host");
      expect(run).toContain(`${IMAGE} --listen 127.0.0.1:${port}`);
      expect(a.cell.logs).toEqual(["logs/block-gw-coprocessor-node.log"]);
      expect(await sidecarGone(a, "repetition 1")).toBeUndefined();
      // The container dies: its process is killed.
      const [name] = (await readFile(path.join(state, "containers"), "utf8")).split("\t");
      process.kill(Number(await readFile(path.join(state, `${name}.pid`), "utf8")), "SIGKILL");
      await a.sidecar!.proc.exited;
      expect(await sidecarGone(a, "repetition 2")).toMatch(
        /^sidecar coprocessor-node exited during repetition 2 \(exit code 137\); log: .*container proxybench-sidecar-coprocessor-node-sc-1 started/,
      );
    } finally {
      await cleanup();
    }
  });

  it("a missing image: the problem names the image and the folder it is built from", async () => {
    const { ctx, root, cleanup } = await setup();
    try {
      const a = cell(gateway({ ...dockerSidecar, name: "coprocessor-csharp", image: "missing/image:local" }));
      const started = await startSidecar(a, ctx, { ...pctx, workdir: root }, "block-gw");
      expect(started.problem).toMatch(
        /^sidecar coprocessor-csharp could not start: .*No such image: missing\/image:local: build it first \(docker build -t missing\/image:local coprocessors\/csharp\)/,
      );
    } finally {
      await cleanup();
    }
  });

  it("natively an image-only sidecar does not start, and says where it runs", async () => {
    const { ctx, root, cleanup } = await setup();
    try {
      const native = { ...ctx, runtime: new NativeRuntime() } as BlockContext;
      const started = await startSidecar(
        cell(gateway(dockerSidecar)),
        native,
        { ...pctx, workdir: root },
        "b",
      );
      expect(started.problem).toBe(
        `sidecar coprocessor-node: image only (${IMAGE}): it runs under --runtime docker`,
      );
    } finally {
      await cleanup();
    }
  });
});
