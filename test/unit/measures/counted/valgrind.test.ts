import { describe, expect, it } from "vitest";
import { loadManifests } from "../../../../src/manifests/load.js";
import {
  buildCallgrindSpec,
  buildContainerCallgrindSpec,
  countedImageRef,
  instructionsSkipReason,
} from "../../../../src/measures/counted/valgrind.js";
import { buildDockerRunArgs } from "../../../../src/runner/docker-runtime.js";

describe("proxies under valgrind", async () => {
  const { proxies } = await loadManifests();
  const get = (name: string) => {
    const p = proxies.get(name);
    if (!p) throw new Error(`no built-in proxy ${name}`);
    return p;
  };
  const ctx = {
    listenHost: "127.0.0.1",
    listenPort: 8080,
    upstreamHost: "127.0.0.1",
    upstreamPort: 9090,
    upstreamGrpcPort: 9091,
    cpus: [1],
    workdir: "/w",
    logFile: "/w/log",
  };

  it("skips direct, image-only proxies and Go runtimes with the reason", () => {
    expect(instructionsSkipReason(get("direct"))).toMatch(/no proxy process/);
    expect(instructionsSkipReason(get("yarp"))).toMatch(/image only/);
    expect(instructionsSkipReason(get("caddy"))).toMatch(/Go runtime/);
    expect(instructionsSkipReason(get("nginx"))).toBeUndefined();
    expect(instructionsSkipReason(get("haproxy"))).toBeUndefined();
  });

  it("under docker, counts what has an image; direct and Go runtimes stay skipped", () => {
    expect(instructionsSkipReason(get("nginx"), "docker")).toBeUndefined();
    expect(instructionsSkipReason(get("haproxy"), "docker")).toBeUndefined();
    expect(instructionsSkipReason(get("apollo-router"), "docker")).toBeUndefined();
    expect(instructionsSkipReason(get("direct"), "docker")).toMatch(/no proxy process/);
    expect(instructionsSkipReason(get("caddy"), "docker")).toMatch(/Go runtime/);
  });

  it("nginx in its image: Valgrind is the entrypoint and pid 1, the same args as natively", () => {
    const configs = [{ output: "/w/nginx.conf", content: "", mount: "/etc/proxybench/nginx.conf" }];
    const image = countedImageRef("proxybench/nginx:pr-7");
    expect(image).toBe("proxybench/nginx:pr-7-valgrind");
    const spec = buildContainerCallgrindSpec(get("nginx"), ctx, configs, image, "/w/cg.out");
    const args = buildDockerRunArgs(spec, { name: "c1", user: "1000:1000" });
    expect(args).not.toContain("--init");
    const at = args.indexOf("--entrypoint");
    expect(args.slice(at, at + 3)).toEqual(["--entrypoint", "valgrind", image]);
    const after = args.slice(at + 3);
    expect(after.slice(0, 5)).toEqual([
      "--tool=callgrind",
      "--instr-atstart=no",
      "--cache-sim=yes",
      "--trace-children=no",
      "--callgrind-out-file=/w/cg.out",
    ]);
    expect(after.slice(5)).toEqual([
      "nginx",
      "-p",
      "/w",
      "-c",
      "/w/nginx.conf",
      "-e",
      "stderr",
      "-g",
      "master_process off;",
    ]);
    // the work folder (where the dump is written) is mounted writable, the config read-only
    expect(args).toContain("type=bind,source=/w,target=/w");
    expect(args).toContain("type=bind,source=/w/nginx.conf,target=/w/nginx.conf,readonly");
    expect(args).toContain("--cpuset-cpus");
  });

  it("the router in its image runs the program its manifest names there", () => {
    const spec = buildContainerCallgrindSpec(get("apollo-router"), ctx, [], "img", "/w/cg.out");
    expect(spec.args[5]).toBe("/dist/router");
    expect(spec.env).toMatchObject({ APOLLO_TELEMETRY_DISABLED: "true" });
  });

  it("nginx runs as one process behind callgrind with instrumentation off at start", () => {
    const tools = { valgrind: "/usr/bin/valgrind", control: "/usr/bin/callgrind_control", version: "3.19.0" };
    const spec = buildCallgrindSpec(get("nginx"), ctx, "/usr/sbin/nginx", tools, "/w/cg.out");
    expect(spec.command).toBe("/usr/bin/valgrind");
    expect(spec.args).toContain("--instr-atstart=no");
    expect(spec.args).toContain("--callgrind-out-file=/w/cg.out");
    const after = spec.args.slice(spec.args.indexOf("/usr/sbin/nginx") + 1);
    expect(after).toEqual(["-p", "/w", "-c", "/w/nginx.conf", "-e", "stderr", "-g", "master_process off;"]);
    expect(spec.cpus).toEqual([1]);
  });
});
