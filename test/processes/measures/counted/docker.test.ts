import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInstructions } from "../../../../src/measures/counted/run.js";
import { DOCKER_CLIENT_ENV } from "../../../../src/runner/runtime-factory.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";
import { liveProcesses } from "../../../../src/util/processes.js";
import { processesMentioning } from "../../../support/runner/helpers.js";

// `proxybench count --runtime docker` with a docker client whose containers are
// processes here (test/support/measures/counted/host-docker.sh: no Docker engine on this machine):
// real nginx under real Valgrind, started, switched and dumped through docker run and docker
// exec as in a container. The count must equal the native one: only the way in differs.
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
const quiet = () => undefined;
const hostDocker = path.join(PROJECT_ROOT, "test", "support", "measures", "counted", "host-docker.sh");

describe("proxybench count --runtime docker", { timeout: 180_000 }, () => {
  let tmp: string;
  let state: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-instr-docker-"));
    state = await mkdtemp(path.join(os.tmpdir(), "pb-host-docker-"));
    process.env[DOCKER_CLIENT_ENV] = hostDocker;
    process.env.HOST_DOCKER_STATE = state;
    process.env.HOST_DOCKER_MISSING = "proxybench/haproxy:pr-7-valgrind";
  });
  afterAll(async () => {
    delete process.env[DOCKER_CLIENT_ENV];
    delete process.env.HOST_DOCKER_STATE;
    delete process.env.HOST_DOCKER_MISSING;
    await rm(tmp, { recursive: true, force: true });
    await rm(state, { recursive: true, force: true });
  });

  const settings = {
    proxies: ["nginx", "haproxy"],
    scenarios: ["passthrough"],
    repetitions: 1,
    requests: 200,
    warmupRequests: 20,
    cpus,
    log: quiet,
  };

  it("counts nginx in its image with Valgrind as a native run counts it; a missing image is skipped with the build command", async () => {
    const native = await runInstructions({ ...settings, proxies: ["nginx"], out: path.join(tmp, "native") });
    const inDocker = await runInstructions({
      ...settings,
      runtime: "docker",
      imageTag: "pr-7",
      out: path.join(tmp, "docker"),
    });
    expect(native.exitCode).toBe(0);
    expect(inDocker.exitCode).toBe(0);
    const { results } = inDocker;
    expect(results.settings.runtime).toBe("docker");
    expect(results.settings.valgrind).toMatch(/^\d+\.\d+\.\d+ \(in the images\)$/);
    expect(results.skipped.map((s) => s.proxy)).toEqual(["haproxy"]);
    expect(results.skipped[0]?.reason).toMatch(
      /image proxybench\/haproxy:pr-7-valgrind has no valgrind .*PROXIES=haproxy docker buildx bake -f action\/docker-bake\.hcl counted/,
    );
    const [cell] = results.cells;
    expect(cell).toMatchObject({
      id: "passthrough/nginx",
      status: "ok",
      image: "proxybench/nginx:pr-7-valgrind",
    });
    const counted = cell?.repetitions[0]?.instructionsPerRequest ?? 0;
    const here = native.results.cells[0]?.repetitions[0]?.instructionsPerRequest ?? 0;
    expect(here).toBeGreaterThan(1000);
    expect(Math.abs(counted - here) / here).toBeLessThan(0.01);

    const calls = (await readFile(path.join(state, "calls"), "utf8")).trim().split("\n");
    const run = calls.find((c) => c.startsWith("run --detach"));
    expect(run).toMatch(
      /--entrypoint valgrind proxybench\/nginx:pr-7-valgrind --tool=callgrind .* nginx -p /,
    );
    expect(run).not.toMatch(/--init/);
    const execs = calls.filter((c) => c.startsWith("exec ")).map((c) => c.split(" ").slice(2).join(" "));
    expect(execs).toEqual([
      "callgrind_control -i on 1",
      "callgrind_control -i off 1",
      "callgrind_control -d 1",
    ]);
    expect(calls.some((c) => c.startsWith("rm --force proxybench-proxy-nginx-"))).toBe(true);
    expect(liveProcesses()).toEqual([]);
    expect(processesMentioning(path.join(tmp, "docker"))).toEqual([]);
  });
});
