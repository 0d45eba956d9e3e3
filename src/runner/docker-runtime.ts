import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { type ProcessSpec, type RunningProcess, type Runtime } from "./runtime.js";
import { cgroupUsageReader } from "./cgroup-usage.js";
import { UserError } from "../util/errors.js";
import { tailOf } from "../util/logs.js";
import { processExists, runCommand, startProcess, type ManagedProcess } from "../util/processes.js";

/**
 * The docker runtime: each process of a cell runs in its own container, with the native
 * runtime's interface. A container is started detached, its output is followed into the
 * spec's log file, and it is removed only once that follower has ended (so the logs are
 * complete), however the container ended.
 */

export interface DockerRunOptions {
  /** Container name: `proxybench-<role>-<id>`. */
  name: string;
  /** `uid:gid` the process runs as; never root. */
  user: string;
  /** Open files limit (soft = hard). */
  nofile?: number;
  /** Labels that let `docker ps --filter label=...` find what a run left behind. */
  labels?: Record<string, string>;
}

/** `uid:gid` for containers: the caller's own ids, so that files written to mounted folders stay theirs; never root. */
export function defaultContainerUser(uid = process.getuid?.(), gid = process.getgid?.()): string {
  if (uid === undefined || gid === undefined || uid === 0) return "65532:65532";
  return `${uid}:${gid}`;
}

/** `proxy:nginx` -> `proxy-nginx`: docker names allow [a-zA-Z0-9][a-zA-Z0-9_.-]. */
function dockerNamePart(text: string): string {
  return text.replace(/[^a-zA-Z0-9_.-]+/g, "-").replace(/^[^a-zA-Z0-9]+/, "");
}

export function containerName(specName: string, id: string): string {
  return `proxybench-${dockerNamePart(specName) || "process"}-${id}`;
}

/** Seconds `docker stop` waits between TERM and KILL. */
const STOP_GRACE_S = 3;

/**
 * The arguments of `docker run` for a spec (pure). Host networking so that the proxy and the
 * upstream talk over loopback as in native runs; pinned cores and a memory cap without swap;
 * `--init` so that signals reach the process and zombies are reaped (unless the spec asks for
 * its command as pid 1); config files mounted read-only; no capabilities and no privilege
 * escalation.
 */
export function buildDockerRunArgs(spec: ProcessSpec, options: DockerRunOptions): string[] {
  if (options.user.split(":")[0] === "0" || options.user === "root") {
    throw new Error(`${spec.name}: containers never run as root (user ${options.user})`);
  }
  const nofile = options.nofile ?? 65535;
  const flags: string[][] = [
    ["--detach"],
    ["--name", options.name],
    spec.container?.init === false ? [] : ["--init"],
    ["--pull", "never"],
    ["--network", "host"],
    ["--user", options.user],
    ["--ulimit", `nofile=${nofile}:${nofile}`],
    ["--cap-drop", "ALL"],
    ["--security-opt", "no-new-privileges"],
    ["--tmpfs", "/tmp"],
    ...Object.entries(options.labels ?? {}).map(([key, value]) => ["--label", `${key}=${value}`]),
    spec.cpus.length > 0 ? ["--cpuset-cpus", spec.cpus.join(",")] : [],
    memoryFlags(spec),
    // The instance's private folder (pid and temp files): writable, at the same path.
    spec.cwd === undefined ? [] : ["--mount", bindMount(spec.cwd, spec.cwd, false), "--workdir", spec.cwd],
    ...(spec.files ?? []).map((file) => ["--mount", bindMount(file, file, true)]),
    ...(spec.mounts ?? []).map((m) => ["--mount", bindMount(m.host, m.container, true)]),
    ...Object.entries(spec.env ?? {}).map(([key, value]) => ["--env", `${key}=${value}`]),
    spec.container?.entrypoint === undefined ? [] : ["--entrypoint", spec.container.entrypoint],
  ];
  return ["run", ...flags.flat(), spec.command, ...spec.args];
}

/** Same value for memory and memory+swap: no swap, so a proxy that runs out is killed, not slowed. */
function memoryFlags({ name, memoryBytes: bytes }: ProcessSpec): string[] {
  if (bytes === undefined) return [];
  if (!Number.isInteger(bytes) || bytes <= 0) {
    throw new Error(`${name}: memory limit must be a positive number of bytes, not ${bytes}`);
  }
  return ["--memory", String(bytes), "--memory-swap", String(bytes)];
}

function bindMount(source: string, target: string, readOnly: boolean): string {
  for (const [what, p] of [
    ["source", source],
    ["target", target],
  ] as const) {
    if (!p.startsWith("/")) throw new Error(`bind mount ${what} must be an absolute path: ${p}`);
    // --mount is a comma-separated list; a comma in a path would split it.
    if (p.includes(",")) throw new Error(`bind mount ${what} cannot contain a comma: ${p}`);
  }
  return `type=bind,source=${source},target=${target}${readOnly ? ",readonly" : ""}`;
}

/**
 * What is wrong with the docker setup, from `docker version`'s outcome (pure), or undefined when
 * the engine answered. `missing`: the docker executable could not be started at all.
 */
export function dockerProblem(
  result: Awaited<ReturnType<typeof runCommand>> & { missing: boolean },
): string | undefined {
  const alternative = "or run natively with --runtime native";
  if (result.missing) {
    return `docker is not installed (no 'docker' executable found): install Docker Engine (https://docs.docker.com/engine/install/), ${alternative}`;
  }
  if (result.code === 0 && result.output.trim() !== "") return undefined;
  const last = tailOf(result.output, 1).trim() || `docker version exited with code ${String(result.code)}`;
  // "...Is the docker daemon running?" then the fix, without a stray "?." in between.
  const said = last.replace(/[.!]$/, "");
  const stop = said.endsWith("?") ? "" : ".";
  if (/permission denied/i.test(result.output)) {
    return `cannot use the Docker engine: ${said}${stop} Add your user to the 'docker' group (sudo usermod -aG docker $USER, then log in again), ${alternative}`;
  }
  return `the Docker engine is not reachable: ${said}${stop} Start it (sudo systemctl start docker) or point DOCKER_HOST at it, ${alternative}`;
}

/** A hint for a failed `docker run` (pure): a missing image names the build command. */
export function dockerRunProblem(spec: ProcessSpec, output: string): string {
  const said = output.trim().split("\n").slice(-3).join(" ").trim();
  const missingImage = /no such image|unable to find image|pull access denied|manifest unknown/i.test(output);
  const proxy = /^proxy:(.+)$/.exec(spec.name)?.[1];
  const coprocessor = /^sidecar:coprocessor-(.+)$/.exec(spec.name)?.[1];
  const folder = proxy ? `proxies/${proxy}` : coprocessor ? `coprocessors/${coprocessor}` : "upstream";
  const hint = missingImage ? `: build it first (docker build -t ${spec.command} ${folder})` : "";
  return `cannot start ${spec.name} in a container (image ${spec.command}): ${said || "docker run failed"}${hint}`;
}

/** The first pid of a /proc/PID/task/TID/children line (pure). */
export function firstChildPid(children: string): number | undefined {
  const pid = Number(children.trim().split(/\s+/)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether a /proc/PID/cgroup text belongs to this container (cgroup v1 or v2, either driver) (pure). */
export function cgroupOfContainer(cgroup: string, containerId: string): boolean {
  return /^[0-9a-f]{12,64}$/.test(containerId) && cgroup.includes(containerId);
}

/**
 * The host pid of the container's main process, for the runner's CPU accounting: with --init
 * it is docker-init's first child (the proxy's master), whose process group its workers share;
 * without, the container's first process. Undefined when the engine is not on this machine's
 * kernel (a VM, a remote DOCKER_HOST): the pid must belong to a process in the container's own
 * cgroup.
 */
async function mainProcessPid(
  docker: string,
  containerId: string,
  init: boolean,
): Promise<number | undefined> {
  const inspect = await runCommand(docker, ["inspect", "--format", "{{.State.Pid}}", containerId]).catch(
    () => undefined,
  );
  const first = inspect?.code === 0 ? Number(inspect.output.trim()) : Number.NaN;
  if (!Number.isInteger(first) || first <= 0) return undefined;
  const cgroup = await readFile(`/proc/${first}/cgroup`, "utf8").catch(() => "");
  if (!cgroupOfContainer(cgroup, containerId)) return undefined;
  if (!init) return first;
  for (let attempt = 0; attempt < 40; attempt++) {
    const children = await readFile(`/proc/${first}/task/${first}/children`, "utf8").catch(() => undefined);
    if (children === undefined) return undefined;
    const child = firstChildPid(children);
    if (child !== undefined) return child;
    await sleep(25);
  }
  return undefined;
}

/** The labels of a run's containers: which run, whose process (host:pid), which cores. */
const RUN_LABEL = "org.proxybench.run";
const OWNER_LABEL = "org.proxybench.owner";
const CPUS_LABEL = "org.proxybench.cpus";

/**
 * The id of this process's containers (pure): $PROXYBENCH_RUN_ID when set (the run action sets
 * it, so that a step after a cancelled or timed-out run removes them by label), else random.
 * Made of what a container name allows.
 */
export function runIdFrom(env: NodeJS.ProcessEnv, random = () => randomBytes(4).toString("hex")): string {
  return dockerNamePart(env.PROXYBENCH_RUN_ID ?? "").slice(0, 100) || random();
}

/** `docker ps` of every proxybench container, or of one run's, with the labels that say whose (pure). */
export function listContainersArgs(runId?: string): string[] {
  const filter = runId === undefined ? RUN_LABEL : `${RUN_LABEL}=${runId}`;
  const labels = [RUN_LABEL, OWNER_LABEL, CPUS_LABEL].map((l) => `{{.Label "${l}"}}`).join("\t");
  return ["ps", "--all", "--filter", `label=${filter}`, "--format", `{{.Names}}\t${labels}`];
}

/** `docker rm --force` of the named containers (pure). */
export function removeContainersArgs(names: readonly string[]): string[] {
  return ["rm", "--force", ...names];
}

export interface ContainerRecord {
  name: string;
  run: string;
  /** The process that started it: `host:pid`. */
  owner?: { host: string; pid: number };
  /** Cores it is pinned to; empty: any core. */
  cpus: number[];
}

/** The lines of `docker ps` with listContainersArgs' format (pure). */
export function parseContainerList(text: string): ContainerRecord[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [name = "", run = "", owner = "", cpus = ""] = line.split("\t");
      const m = /^(.+):(\d+)$/.exec(owner.trim());
      return {
        name: name.trim(),
        run: run.trim(),
        ...(m ? { owner: { host: m[1]!, pid: Number(m[2]) } } : {}),
        cpus: cpus
          .split(",")
          .filter((c) => /^\d+$/.test(c.trim()))
          .map(Number),
      };
    });
}

/**
 * What to do, before starting a container on `cores`, about other runs' containers on those
 * cores (pure): remove those whose process is gone (a run killed or cancelled before its
 * cleanup), refuse while one's process still runs or cannot be checked (another host's).
 */
export function leftoverVerdict(
  containers: readonly ContainerRecord[],
  here: {
    runId: string;
    cores: readonly number[];
    host: string;
    pid: number;
    alive: (pid: number) => boolean;
  },
): { remove: string[]; refuse?: string } {
  const overlaps = (c: ContainerRecord) =>
    c.cpus.length === 0 || here.cores.length === 0 || c.cpus.some((core) => here.cores.includes(core));
  // This process's own containers (of an earlier runtime of a study, say) are not another run's.
  const mine = (c: ContainerRecord) => c.owner?.host === here.host && c.owner.pid === here.pid;
  const others = containers.filter((c) => c.run !== here.runId && !mine(c) && overlaps(c));
  const live = (c: ContainerRecord) => !c.owner || c.owner.host !== here.host || here.alive(c.owner.pid);
  const remove = others.filter((c) => !live(c)).map((c) => c.name);
  const busy = others.filter(live);
  if (busy.length === 0) return { remove };
  const names = busy.map((c) => c.name);
  const owners = [...new Set(busy.map((c) => (c.owner ? `${c.owner.host}:${c.owner.pid}` : "unknown")))];
  return {
    remove,
    refuse:
      `cores ${here.cores.join(",") || "(unpinned)"} are in use by containers of another proxybench run ` +
      `(process ${owners.join(", ")} still running, or on another host): ${names.join(", ")}; ` +
      `wait for it to end, or remove them: docker ${removeContainersArgs(names).join(" ")}`,
  };
}

/** Removes every container of a run (`proxybench containers --remove`); the names removed. */
export async function removeRunContainers(docker: string, runId: string): Promise<string[]> {
  const listed = await runCommand(docker, listContainersArgs(runId), { timeoutMs: 30_000 });
  if (listed.code !== 0) throw new UserError(`docker ps failed: ${tailOf(listed.output, 1).trim()}`);
  const names = parseContainerList(listed.output).map((c) => c.name);
  if (names.length === 0) return [];
  const removed = await runCommand(docker, removeContainersArgs(names), { timeoutMs: 60_000 });
  if (removed.code !== 0) throw new UserError(`docker rm failed: ${tailOf(removed.output, 1).trim()}`);
  return names;
}

/** Containers started and not yet removed; removed synchronously if the process exits first. */
const containers = new Set<string>();
let exitHookInstalled = false;

function rememberContainer(docker: string, name: string): void {
  containers.add(name);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    if (containers.size > 0) spawnSync(docker, removeContainersArgs([...containers]), { stdio: "ignore" });
  });
}

export interface DockerRuntimeOptions {
  /** The docker executable (default: `docker` on PATH). */
  docker?: string;
  /** `uid:gid` of the containers (default: the caller's own, or 65532 when that is root). */
  user?: string;
  /** Identifies this run in container names and labels (default: random). */
  runId?: string;
}

export class DockerRuntime implements Runtime {
  readonly kind = "docker" as const;
  private readonly docker: string;
  private readonly runId: string;
  private checked: Promise<void> | undefined;
  private counter = 0;
  /** Containers started and not yet ended: this run's work outside its process tree. */
  private readonly live = new Set<ContainerProcess>();

  constructor(private readonly options: DockerRuntimeOptions = {}) {
    this.docker = options.docker ?? "docker";
    this.runId = options.runId ?? runIdFrom(process.env);
  }

  /** Fails with a UserError naming the fix when docker is missing or its engine cannot be reached. */
  async check(): Promise<void> {
    this.checked ??= (async () => {
      const result = await runCommand(this.docker, ["version", "--format", "{{.Server.Version}}"], {
        timeoutMs: 20_000,
      }).then(
        ({ code, output }) => ({ missing: false, code, output }),
        () => ({ missing: true, code: null, output: "" }),
      );
      const problem = dockerProblem(result);
      if (problem) throw new UserError(problem);
    })();
    return this.checked;
  }

  /**
   * Other runs' containers on these cores: those of a run that ended without its cleanup
   * (killed, cancelled) are removed; one whose run still goes is a refusal naming it.
   */
  private async clearLeftovers(cores: readonly number[]): Promise<void> {
    const listed = await runCommand(this.docker, listContainersArgs(), { timeoutMs: 30_000 });
    if (listed.code !== 0) return; // the start itself reports an engine that does not answer
    const verdict = leftoverVerdict(parseContainerList(listed.output), {
      runId: this.runId,
      cores,
      host: hostname(),
      pid: process.pid,
      alive: processExists,
    });
    if (verdict.remove.length > 0) {
      await runCommand(this.docker, removeContainersArgs(verdict.remove), { timeoutMs: 60_000 });
      process.stderr.write(`removed containers an earlier run left behind: ${verdict.remove.join(", ")}\n`);
    }
    if (verdict.refuse) throw new UserError(verdict.refuse);
  }

  async start(spec: ProcessSpec): Promise<RunningProcess> {
    await this.check();
    await this.clearLeftovers(spec.cpus);
    const name = containerName(spec.name, `${this.runId}-${++this.counter}`);
    const user = this.options.user ?? defaultContainerUser();
    if (spec.cwd !== undefined && user.split(":")[0] !== String(process.getuid?.())) {
      // Containers of a root caller run as 65532, another user than the folder's owner: let the
      // proxy write its pid and temp files into its private folder.
      await chmod(spec.cwd, 0o777);
    }
    const args = buildDockerRunArgs(spec, {
      name,
      user,
      labels: {
        [RUN_LABEL]: this.runId,
        "org.proxybench.role": spec.name,
        [OWNER_LABEL]: `${hostname()}:${process.pid}`,
        [CPUS_LABEL]: spec.cpus.join(","),
      },
    });
    const started = await runCommand(this.docker, args, { timeoutMs: 60_000 });
    if (started.code !== 0) {
      // A container may exist even though run failed (e.g. the entrypoint is missing).
      await runCommand(this.docker, removeContainersArgs([name])).catch(() => undefined);
      throw new UserError(dockerRunProblem(spec, started.output));
    }
    rememberContainer(this.docker, name);
    const containerId = tailOf(started.output, 1).trim();
    const follower = await startProcess({
      name: `${spec.name} (logs)`,
      command: this.docker,
      args: ["logs", "--follow", name],
      logFile: spec.logFile,
    });
    const pid = await mainProcessPid(this.docker, containerId, spec.container?.init !== false);
    const proc = containerProcess(spec.name, name, this.docker, follower, pid);
    this.live.add(proc);
    void proc.exited.then(() => this.live.delete(proc));
    return proc;
  }

  /**
   * CPU time (ns) of this run's live containers, by name, from their cgroups (for the noise on
   * the pinned cores, which counts every process of the host); undefined when one cannot be
   * read: then this run's work cannot be told from another's.
   */
  async outsideCpuNs(): Promise<ReadonlyMap<string, number> | undefined> {
    const out = new Map<string, number>();
    for (const proc of this.live) {
      const usage = await proc.usage(false);
      if (usage === undefined) return undefined;
      out.set(proc.container, usage.cpuNs);
    }
    return out;
  }
}

type ContainerProcess = RunningProcess & { readonly container: string };

/**
 * A started container as a process. `pid`: the host pid of its main process (see
 * mainProcessPid), through which its usage is read from its cgroup (src/runner/cgroup-usage.ts).
 */
function containerProcess(
  name: string,
  container: string,
  docker: string,
  follower: ManagedProcess,
  pid?: number,
): ContainerProcess {
  const reader = pid === undefined ? undefined : cgroupUsageReader(pid);
  let done = false;
  // The follower ends when the container stops (its logs are then complete), or when it is
  // itself stopped (Ctrl-C): either way the container goes, after its exit code is read.
  const exited = follower.exited.then(async () => {
    const inspect = await runCommand(docker, ["inspect", "--format", "{{.State.ExitCode}}", container]).catch(
      () => ({ code: 1, output: "" }),
    );
    await runCommand(docker, removeContainersArgs([container])).catch(() => undefined);
    containers.delete(container);
    done = true;
    await reader?.close();
    const code = inspect.code === 0 ? Number.parseInt(inspect.output.trim(), 10) : Number.NaN;
    return { code: Number.isNaN(code) ? null : code, signal: null };
  });
  return {
    name,
    container,
    pid,
    exited,
    usage: reader ?? (() => Promise.resolve(undefined)),
    alive: () => !done,
    /** `docker exec` in the container, as its user. */
    exec: (command, args, timeoutMs) =>
      runCommand(docker, ["exec", container, command, ...args], { timeoutMs }),
    async stop() {
      if (done) return;
      await runCommand(docker, ["stop", "--time", String(STOP_GRACE_S), container]).catch(() => undefined);
      await exited;
    },
  };
}
