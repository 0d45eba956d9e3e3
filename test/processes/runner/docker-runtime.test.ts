import { describe, expect, it } from "vitest";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import type { ProcessSpec } from "../../../src/runner/runtime.js";
import {
  DockerRuntime,
  buildDockerRunArgs,
  cgroupOfContainer,
  containerName,
  firstChildPid,
  defaultContainerUser,
  dockerProblem,
  dockerRunProblem,
  leftoverVerdict,
  listContainersArgs,
  parseContainerList,
  removeContainersArgs,
  removeRunContainers,
  runIdFrom,
  type ContainerRecord,
} from "../../../src/runner/docker-runtime.js";
import { UserError } from "../../../src/util/errors.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

const base: ProcessSpec = {
  name: "proxy:nginx",
  command: "proxybench/nginx:local",
  args: [],
  cpus: [],
  logFile: "/tmp/x/nginx.log",
};

const FIXED = [
  "run",
  "--detach",
  "--name",
  "proxybench-proxy-nginx-r1",
  "--init",
  "--pull",
  "never",
  "--network",
  "host",
  "--user",
  "1001:121",
  "--ulimit",
  "nofile=65535:65535",
  "--cap-drop",
  "ALL",
  "--security-opt",
  "no-new-privileges",
  "--tmpfs",
  "/tmp",
];

describe("buildDockerRunArgs", () => {
  const options = { name: "proxybench-proxy-nginx-r1", user: "1001:121" };
  it.each<[string, Partial<ProcessSpec>, string[]]>([
    ["nothing but the image", {}, [...FIXED, "proxybench/nginx:local"]],
    [
      "args after the image, in order",
      { args: ["-c", "/etc/nginx/nginx.conf", "-g", "daemon off;"] },
      [...FIXED, "proxybench/nginx:local", "-c", "/etc/nginx/nginx.conf", "-g", "daemon off;"],
    ],
    ["one core", { cpus: [1] }, [...FIXED, "--cpuset-cpus", "1", "proxybench/nginx:local"]],
    ["several cores", { cpus: [2, 3, 5] }, [...FIXED, "--cpuset-cpus", "2,3,5", "proxybench/nginx:local"]],
    [
      "memory cap without swap",
      { memoryBytes: 1073741824 },
      [...FIXED, "--memory", "1073741824", "--memory-swap", "1073741824", "proxybench/nginx:local"],
    ],
    [
      "writable private folder",
      { cwd: "/tmp/run/nginx" },
      [
        ...FIXED,
        "--mount",
        "type=bind,source=/tmp/run/nginx,target=/tmp/run/nginx",
        "--workdir",
        "/tmp/run/nginx",
        "proxybench/nginx:local",
      ],
    ],
    [
      "config files read-only at the same path, then at their container path",
      {
        files: ["/tmp/run/nginx/nginx.conf"],
        mounts: [{ host: "/tmp/run/envoy/envoy.yaml", container: "/etc/envoy/envoy.yaml" }],
      },
      [
        ...FIXED,
        "--mount",
        "type=bind,source=/tmp/run/nginx/nginx.conf,target=/tmp/run/nginx/nginx.conf,readonly",
        "--mount",
        "type=bind,source=/tmp/run/envoy/envoy.yaml,target=/etc/envoy/envoy.yaml,readonly",
        "proxybench/nginx:local",
      ],
    ],
    [
      "environment, values kept whole",
      { env: { UPSTREAM: "http://127.0.0.1:8081", OPTS: "a=b c" } },
      [...FIXED, "--env", "UPSTREAM=http://127.0.0.1:8081", "--env", "OPTS=a=b c", "proxybench/nginx:local"],
    ],
  ])("%s", (_label, spec, expected) => {
    expect(buildDockerRunArgs({ ...base, ...spec }, options)).toEqual(expected);
  });

  it("adds labels and a custom open-files limit", () => {
    const args = buildDockerRunArgs(base, {
      ...options,
      nofile: 1024,
      labels: { "org.proxybench.run": "r1" },
    });
    expect(args).toContain("nofile=1024:1024");
    expect(args.slice(args.indexOf("--label"), args.indexOf("--label") + 2)).toEqual([
      "--label",
      "org.proxybench.run=r1",
    ]);
  });

  it.each<[string, Partial<ProcessSpec>, { user?: string }, RegExp]>([
    ["root by uid", {}, { user: "0:0" }, /never run as root/],
    ["root by name", {}, { user: "root" }, /never run as root/],
    ["relative mount", { files: ["nginx.conf"] }, {}, /absolute path: nginx.conf/],
    ["comma in a path", { files: ["/tmp/a,b.conf"] }, {}, /cannot contain a comma/],
    ["negative memory", { memoryBytes: -1 }, {}, /positive number of bytes/],
  ])("refuses %s", (_label, spec, opts, error) => {
    expect(() => buildDockerRunArgs({ ...base, ...spec }, { ...options, ...opts })).toThrow(error);
  });
});

describe("names and users", () => {
  it.each([
    ["proxy:nginx", "a1-1", "proxybench-proxy-nginx-a1-1"],
    ["upstream", "a1-2", "proxybench-upstream-a1-2"],
    ["proxy:aspnet httpclient", "x", "proxybench-proxy-aspnet-httpclient-x"],
    [":::", "x", "proxybench-process-x"],
  ])("container of %j", (spec, id, expected) => {
    expect(containerName(spec, id)).toBe(expected);
  });

  it.each<[number | undefined, number | undefined, string]>([
    [1001, 121, "1001:121"],
    [0, 0, "65532:65532"],
    [undefined, undefined, "65532:65532"],
  ])("uid %s gid %s runs as %s", (uid, gid, expected) => {
    expect(defaultContainerUser(uid, gid)).toBe(expected);
  });
});

describe("the container's main process", () => {
  const id = "4f1c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4";
  it.each<[string, string, boolean]>([
    ["cgroup v2, systemd driver", `0::/system.slice/docker-${id}.scope\n`, true],
    ["cgroup v2, cgroupfs driver", `0::/docker/${id}\n`, true],
    ["cgroup v1", `12:pids:/docker/${id}\n11:memory:/docker/${id}\n`, true],
    [
      "another container",
      "0::/system.slice/docker-0123456789ab0123456789ab0123456789ab0123456789ab0123456789ab0123.scope\n",
      false,
    ],
    ["the host", "0::/user.slice/user-1000.slice/session-2.scope\n", false],
  ])("%s", (_label, cgroup, expected) => {
    expect(cgroupOfContainer(cgroup, id)).toBe(expected);
  });

  it("refuses a container id that is not one", () => {
    expect(cgroupOfContainer("0::/docker/abc\n", "abc")).toBe(false);
  });

  it.each<[string, number | undefined]>([
    ["4242 4250 \n", 4242],
    ["17\n", 17],
    ["", undefined],
    ["\n", undefined],
  ])("first child of %j", (children, expected) => {
    expect(firstChildPid(children)).toBe(expected);
  });
});

describe("docker problems", () => {
  it.each<[string, Parameters<typeof dockerProblem>[0], RegExp | undefined]>([
    ["engine answers", { missing: false, code: 0, output: "28.2.2\n" }, undefined],
    ["no executable", { missing: true, code: null, output: "" }, /docker is not installed.*--runtime native/],
    [
      "no daemon",
      {
        missing: false,
        code: 1,
        output:
          "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n",
      },
      /^the Docker engine is not reachable: Cannot connect to the Docker daemon at unix:\/\/\/var\/run\/docker\.sock\. Is the docker daemon running\? Start it \(sudo systemctl start docker\)/,
    ],
    [
      "socket not permitted",
      {
        missing: false,
        code: 1,
        output:
          "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
      },
      /docker\.sock\. Add your user to the 'docker' group \(sudo usermod -aG docker \$USER/,
    ],
    ["empty answer", { missing: false, code: 0, output: "" }, /not reachable/],
  ])("%s", (_label, result, expected) => {
    const problem = dockerProblem(result);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });

  it.each([
    [
      "proxy:envoy",
      "proxybench/envoy:local",
      "docker: Error response from daemon: No such image: proxybench/envoy:local",
      /build it first \(docker build -t proxybench\/envoy:local proxies\/envoy\)/,
    ],
    [
      "upstream",
      "proxybench/upstream:local",
      "Unable to find image 'proxybench/upstream:local' locally",
      /docker build -t proxybench\/upstream:local upstream/,
    ],
    [
      "proxy:nginx",
      "proxybench/nginx:local",
      'exec: "nginx": executable file not found in $PATH',
      /^cannot start proxy:nginx in a container \(image proxybench\/nginx:local\): exec: "nginx": executable file not found in \$PATH$/,
    ],
  ])("run failure of %s", (name, image, output, expected) => {
    expect(dockerRunProblem({ ...base, name, command: image }, output)).toMatch(expected);
  });
});

describe("DockerRuntime against the docker client of this machine", () => {
  it("names the missing executable and the way out", async () => {
    const runtime = new DockerRuntime({ docker: "/nonexistent/docker" });
    const error = await runtime.start(base).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toMatch(/docker is not installed.*--runtime native/);
  });

  it("reports an engine that does not answer, with what docker said", async () => {
    // A docker client whose engine is unreachable: the real client pointed at a socket nobody
    // listens on (this machine has the client only).
    const dir = await mkdtemp(path.join(tmpdir(), "pb-docker-"));
    try {
      const wrapper = path.join(dir, "docker");
      const realDocker = ["/usr/local/bin/docker", "/usr/bin/docker"];
      let client: string | undefined;
      for (const candidate of realDocker) {
        if (
          await readFile(candidate).then(
            () => true,
            () => false,
          )
        )
          client = candidate;
      }
      const command = client
        ? `exec ${client} "$@"`
        : `echo "Cannot connect to the Docker daemon at unix://${dir}/none.sock. Is the docker daemon running?" >&2; exit 1`;
      await writeFile(wrapper, `#!/bin/sh\nexport DOCKER_HOST=unix://${dir}/none.sock\n${command}\n`);
      await chmod(wrapper, 0o755);
      const runtime = new DockerRuntime({ docker: wrapper });
      const error = await runtime.start(base).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toMatch(
        /Docker engine is not reachable: .*none\.sock.*systemctl start docker/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("DockerRuntime lifecycle, with a stand-in for docker (no engine on this machine)", () => {
  const fake = path.join(PROJECT_ROOT, "test", "support", "actions", "fake-docker.sh");

  async function withState<T>(fn: (state: string) => Promise<T>): Promise<T> {
    const state = await mkdtemp(path.join(tmpdir(), "pb-fake-docker-"));
    const previous = process.env.FAKE_DOCKER_STATE;
    process.env.FAKE_DOCKER_STATE = state;
    try {
      return await fn(state);
    } finally {
      if (previous === undefined) delete process.env.FAKE_DOCKER_STATE;
      else process.env.FAKE_DOCKER_STATE = previous;
      await rm(state, { recursive: true, force: true });
    }
  }

  async function waitFor(file: string, text: string): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const content = await readFile(file, "utf8").catch(() => "");
      if (content.includes(text)) return content;
      await new Promise((r) => setTimeout(r, 25));
    }
    return readFile(file, "utf8").catch(() => "");
  }

  const calls = async (state: string) =>
    (await readFile(path.join(state, "calls"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => l.split(" ")[0]);

  it("follows the output into the log, stops the container, then removes it", async () => {
    await withState(async (state) => {
      const logFile = path.join(state, "proxy.log");
      const runtime = new DockerRuntime({ docker: fake, runId: "t1", user: "1000:1000" });
      const proc = await runtime.start({ ...base, args: ["serve", "--port", "8080"], cpus: [1], logFile });
      expect(await waitFor(logFile, "started")).toContain(
        "container proxybench-proxy-nginx-t1-1 started: serve --port 8080",
      );
      expect(proc.alive()).toBe(true);
      await proc.stop();
      expect(proc.alive()).toBe(false);
      expect(await proc.exited).toEqual({ code: 0, signal: null });
      const log = await readFile(logFile, "utf8");
      expect(log).toContain("on stderr");
      expect(log).toContain("got TERM");
      // The main process's pid is asked for, and refused: the "container" is not in a cgroup of its own.
      // The log follower and the pid lookup start together after `run`: either may reach docker first.
      const seen = await calls(state);
      expect(seen.slice(0, 3)).toEqual(["version", "ps", "run"]);
      expect(seen.slice(3, 5).sort()).toEqual(["inspect", "logs"]);
      expect(seen.slice(5)).toEqual(["stop", "inspect", "rm"]);
      expect(proc.pid).toBeUndefined();
      expect(existsSync(path.join(state, "proxybench-proxy-nginx-t1-1.removed"))).toBe(true);
      const runLine = (await readFile(path.join(state, "calls"), "utf8")).split("\n")[2]!;
      expect(runLine).toContain("--cpuset-cpus 1");
      expect(runLine).toContain("--user 1000:1000");
      expect(runLine).toContain("--label org.proxybench.run=t1");
      // Whose it is and where it runs, for the next run's check and `proxybench containers`.
      expect(runLine).toContain(`--label org.proxybench.owner=${hostname()}:${process.pid}`);
      expect(runLine).toContain("--label org.proxybench.cpus=1");
    });
  });

  it("reports a container that ends by itself with its exit code, and removes it", async () => {
    await withState(async (state) => {
      const logFile = path.join(state, "crash.log");
      const runtime = new DockerRuntime({ docker: fake, runId: "t2", user: "1000:1000" });
      const proc = await runtime.start({ ...base, args: ["crash"], logFile });
      expect(await proc.exited).toEqual({ code: 3, signal: null });
      expect(proc.alive()).toBe(false);
      expect(await readFile(logFile, "utf8")).toContain("started: crash");
      expect(existsSync(path.join(state, "proxybench-proxy-nginx-t2-1.removed"))).toBe(true);
      await proc.stop(); // already gone: nothing to do
      expect((await calls(state)).filter((c) => c === "stop")).toEqual([]);
    });
  });

  it("names the image and the build command when the image is missing", async () => {
    await withState(async (state) => {
      const runtime = new DockerRuntime({ docker: fake, runId: "t3", user: "1000:1000" });
      const error = await runtime
        .start({ ...base, command: "missing/image:local", logFile: path.join(state, "x.log") })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toMatch(/No such image: missing\/image:local: build it first/);
      expect(await calls(state)).toEqual(["version", "ps", "run", "rm"]);
    });
  });
});

describe("the instance folder of a container run as another user", () => {
  const fake = path.join(PROJECT_ROOT, "test", "support", "actions", "fake-docker.sh");
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;

  async function folderModeAfterRun(user: string): Promise<number> {
    const state = await mkdtemp(path.join(tmpdir(), "pb-fake-docker-"));
    const previous = process.env.FAKE_DOCKER_STATE;
    process.env.FAKE_DOCKER_STATE = state;
    try {
      const folder = path.join(state, "instance");
      await mkdir(folder, { mode: 0o755 });
      const runtime = new DockerRuntime({ docker: fake, runId: "u", user });
      const proc = await runtime.start({ ...base, cwd: folder, logFile: path.join(state, "x.log") });
      await proc.stop();
      return (await stat(folder)).mode & 0o777;
    } finally {
      if (previous === undefined) delete process.env.FAKE_DOCKER_STATE;
      else process.env.FAKE_DOCKER_STATE = previous;
      await rm(state, { recursive: true, force: true });
    }
  }

  it("is opened to a container user other than the caller (a root caller's containers run as 65532)", async () => {
    expect(await folderModeAfterRun(`${uid + 4242}:${gid}`)).toBe(0o777);
  });

  it.skipIf(uid === 0)("is left as it is for the caller's own user", async () => {
    expect(await folderModeAfterRun(`${uid}:${gid}`)).toBe(0o755);
  });
});

describe("containers a cancelled or killed run left behind", () => {
  const fake = path.join(PROJECT_ROOT, "test", "support", "actions", "fake-docker.sh");
  /** A pid no process has: a child that has already ended. */
  const deadPid = spawnSync("true").pid;
  const here = {
    runId: "now",
    cores: [2, 3],
    host: "bench-01",
    pid: 7,
    alive: (pid: number) => pid === 4242,
  };
  const record = (name: string, run: string, owner: string, cpus: number[]): ContainerRecord => {
    const [host, pid] = owner.split(":");
    return { name, run, owner: { host: host!, pid: Number(pid) }, cpus };
  };

  it("the run id comes from PROXYBENCH_RUN_ID (the run action sets it), made fit for a container name", () => {
    expect(runIdFrom({ PROXYBENCH_RUN_ID: "123-1-bench-GitHub Actions 2" })).toBe(
      "123-1-bench-GitHub-Actions-2",
    );
    expect(runIdFrom({}, () => "r4nd")).toBe("r4nd");
    expect(runIdFrom({ PROXYBENCH_RUN_ID: "--" }, () => "r4nd")).toBe("r4nd");
  });

  it("lists and removes by the run label (pure command lines)", () => {
    expect(listContainersArgs("123-1")).toEqual([
      "ps",
      "--all",
      "--filter",
      "label=org.proxybench.run=123-1",
      "--format",
      '{{.Names}}\t{{.Label "org.proxybench.run"}}\t{{.Label "org.proxybench.owner"}}\t{{.Label "org.proxybench.cpus"}}',
    ]);
    expect(listContainersArgs()[3]).toBe("label=org.proxybench.run");
    expect(removeContainersArgs(["a", "b"])).toEqual(["rm", "--force", "a", "b"]);
    expect(parseContainerList("pb-proxy-nginx-x-1\tx\thost-a:17\t2,3\npb-up\ty\t\t\n")).toEqual([
      { name: "pb-proxy-nginx-x-1", run: "x", owner: { host: "host-a", pid: 17 }, cpus: [2, 3] },
      { name: "pb-up", run: "y", cpus: [] },
    ]);
  });

  it("removes a dead run's containers on our cores, refuses a live one's, leaves other cores and our own alone", () => {
    const stale = record("stale", "old", "bench-01:999", [2]);
    const live = record("live", "other", "bench-01:4242", [3]);
    const elsewhere = record("elsewhere", "other", "bench-01:4242", [6, 7]);
    const ours = record("ours", "now", "bench-01:1", [2]);
    const remote = record("remote", "far", "bench-02:999", [2]);
    // A container this very process started under another run id (an earlier runtime) is its own.
    const sameProcess = record("same-process", "earlier", "bench-01:7", [2]);
    expect(leftoverVerdict([stale, elsewhere, ours, sameProcess], here)).toEqual({ remove: ["stale"] });
    const refused = leftoverVerdict([stale, live], here);
    expect(refused.remove).toEqual(["stale"]);
    expect(refused.refuse).toMatch(/cores 2,3 are in use by containers of another proxybench run/);
    expect(refused.refuse).toMatch(/bench-01:4242 still running.*live; .*docker rm --force live/);
    // Another host's process cannot be checked from here: refused, not removed.
    expect(leftoverVerdict([remote], here).refuse).toMatch(/remote/);
  });

  async function withState<T>(fn: (state: string) => Promise<T>): Promise<T> {
    const state = await mkdtemp(path.join(tmpdir(), "pb-fake-docker-"));
    const previous = process.env.FAKE_DOCKER_STATE;
    process.env.FAKE_DOCKER_STATE = state;
    try {
      return await fn(state);
    } finally {
      if (previous === undefined) delete process.env.FAKE_DOCKER_STATE;
      else process.env.FAKE_DOCKER_STATE = previous;
      await rm(state, { recursive: true, force: true });
    }
  }

  it("a run starts by removing what a killed run left on its cores, and refuses cores another run holds", async () => {
    await withState(async (state) => {
      const left = [
        `proxybench-proxy-nginx-old-1\told\t${hostname()}:${deadPid}\t1`,
        `proxybench-proxy-envoy-busy-1\tbusy\t${hostname()}:${process.ppid}\t5`,
      ];
      await writeFile(path.join(state, "containers"), `${left.join("\n")}\n`);
      const runtime = new DockerRuntime({ docker: fake, runId: "new", user: "1000:1000" });
      const proc = await runtime.start({ ...base, cpus: [1], logFile: path.join(state, "a.log") });
      expect(existsSync(path.join(state, "proxybench-proxy-nginx-old-1.removed"))).toBe(true);
      expect(existsSync(path.join(state, "proxybench-proxy-envoy-busy-1.removed"))).toBe(false);
      await proc.stop();
      // Core 5 is held by a run whose process (this one's parent) still runs: refused, nothing removed.
      const error = await runtime
        .start({ ...base, cpus: [5], logFile: path.join(state, "b.log") })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toMatch(/cores 5 are in use .*proxybench-proxy-envoy-busy-1/);
      expect(existsSync(path.join(state, "proxybench-proxy-envoy-busy-1.removed"))).toBe(false);
    });
  });

  it("proxybench containers --remove, as the run action calls it, removes the run PROXYBENCH_RUN_ID names", async () => {
    await withState(async (state) => {
      const id = "123-1-bench-GitHub Actions 2";
      const previous = process.env.PROXYBENCH_RUN_ID;
      process.env.PROXYBENCH_RUN_ID = id;
      try {
        // The run step: its runtime takes the id from the same variable.
        const runtime = new DockerRuntime({ docker: fake, user: "1000:1000" });
        await runtime.start({ ...base, cpus: [1], logFile: path.join(state, "r.log") });
      } finally {
        if (previous === undefined) delete process.env.PROXYBENCH_RUN_ID;
        else process.env.PROXYBENCH_RUN_ID = previous;
      }
      const cli = spawnSync(
        process.execPath,
        [path.join(PROJECT_ROOT, "bin", "proxybench.js"), "containers", "--remove", "--docker", fake],
        { env: { ...process.env, PROXYBENCH_RUN_ID: id, FAKE_DOCKER_STATE: state }, encoding: "utf8" },
      );
      expect(cli.stderr).toBe("");
      expect(cli.stdout).toBe(
        "removed 1 container(s) of run 123-1-bench-GitHub-Actions-2: proxybench-proxy-nginx-123-1-bench-GitHub-Actions-2-1\n",
      );
      expect(
        existsSync(path.join(state, "proxybench-proxy-nginx-123-1-bench-GitHub-Actions-2-1.removed")),
      ).toBe(true);
    });
  });

  it("names its live containers' CPU for the noise check, or nothing when one cannot be read", async () => {
    await withState(async (state) => {
      const runtime = new DockerRuntime({ docker: fake, runId: "noise", user: "1000:1000" });
      expect(await runtime.outsideCpuNs()).toEqual(new Map());
      const proc = await runtime.start({ ...base, cpus: [1], logFile: path.join(state, "n.log") });
      // The stand-in's "container" has no cgroup of its own: its CPU cannot be told apart, so
      // the noise on the cores is not measured rather than measured wrong.
      expect(proc.pid).toBeUndefined();
      expect(await runtime.outsideCpuNs()).toBeUndefined();
      await proc.stop();
      expect(await runtime.outsideCpuNs()).toEqual(new Map());
    });
  });

  it("removes every container of one run, and only that run's (the run action's step after a cancel)", async () => {
    await withState(async (state) => {
      const a = new DockerRuntime({ docker: fake, runId: "gone", user: "1000:1000" });
      const b = new DockerRuntime({ docker: fake, runId: "keep", user: "1000:1000" });
      // Two containers of a run whose process was killed (never stopped), one of another run.
      await a.start({ ...base, cpus: [1], logFile: path.join(state, "1.log") });
      await a.start({ ...base, name: "proxy:envoy", cpus: [1], logFile: path.join(state, "2.log") });
      const other = await b.start({ ...base, cpus: [6], logFile: path.join(state, "3.log") });
      expect(await removeRunContainers(fake, "gone")).toEqual([
        "proxybench-proxy-nginx-gone-1",
        "proxybench-proxy-envoy-gone-2",
      ]);
      expect(await removeRunContainers(fake, "gone")).toEqual([]);
      expect(existsSync(path.join(state, "proxybench-proxy-nginx-keep-1.removed"))).toBe(false);
      await other.stop();
    });
  });
});
