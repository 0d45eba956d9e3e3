import { describe, expect, it } from "vitest";
import { checkInstructionsFlags } from "../../src/instructions/command.js";
import { loadManifests } from "../../src/manifests/load.js";
import { buildCallgrindSpec, instructionsSkipReason } from "../../src/instructions/valgrind.js";

describe("run --measure instructions flags", () => {
  it("accepts the flags a counted run reads", () => {
    expect(() =>
      checkInstructionsFlags({
        measure: "instructions",
        proxies: ["nginx"],
        repetitions: 5,
        out: "x",
        cpus: undefined,
      }),
    ).not.toThrow();
  });

  it("accepts --variant; refuses --round-order by name (counted variants always alternate ABBA)", () => {
    expect(() =>
      checkInstructionsFlags({ measure: "instructions", variant: ["base=a", "head=b"] }),
    ).not.toThrow();
    expect(() =>
      checkInstructionsFlags({ measure: "instructions", variant: ["base=../main"], roundOrder: "abba" }),
    ).toThrow(/--measure instructions and --round-order cannot be used together/);
  });

  it("names the flags that mean nothing to a counted run", () => {
    expect(() => checkInstructionsFlags({ measure: "instructions", engine: "wrk", duration: 5 })).toThrow(
      /--measure instructions and --engine, --duration cannot be used together/,
    );
  });
});

describe("proxies under valgrind", async () => {
  const { proxies } = await loadManifests();
  const get = (name: string) => {
    const p = proxies.get(name);
    if (!p) throw new Error(`no built-in proxy ${name}`);
    return p;
  };

  it("skips direct, image-only proxies and Go runtimes with the reason", () => {
    expect(instructionsSkipReason(get("direct"))).toMatch(/no proxy process/);
    expect(instructionsSkipReason(get("yarp"))).toMatch(/image only/);
    expect(instructionsSkipReason(get("caddy"))).toMatch(/Go runtime/);
    expect(instructionsSkipReason(get("nginx"))).toBeUndefined();
    expect(instructionsSkipReason(get("haproxy"))).toBeUndefined();
  });

  it("nginx runs as one process behind callgrind with instrumentation off at start", () => {
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
