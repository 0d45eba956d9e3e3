import type { StartOptions } from "../util/processes.js";

/**
 * How the runner starts the processes of a cell (upstream, proxy), natively or in a
 * container. Both runtimes take the same spec so that a cell is described once.
 */
export interface ProcessSpec extends Pick<StartOptions, "args" | "env" | "cwd"> {
  /** Short role name used in logs and messages: "upstream", "proxy:nginx". */
  name: string;
  /** Native: the executable. Docker: the image reference. */
  command: string;
  /** Cores the process is pinned to (taskset -c / --cpuset-cpus). Empty: not pinned. */
  cpus: number[];
  /** Memory limit in bytes: docker's --memory; natively the data segment (prlimit --data). */
  memoryBytes?: number;
  /** Where stdout and stderr go. */
  logFile: string;
  /** Host files the process needs (docker bind-mounts them read-only at the same path). */
  files?: string[];
  /** Host files mounted read-only at another path in the container (docker only). */
  mounts?: Array<{ host: string; container: string }>;
  /**
   * Docker only: run `entrypoint` instead of the image's (with `args` as its arguments), and
   * without docker's init process (`init: false`), so that the command is the container's pid 1.
   */
  container?: { entrypoint?: string; init?: boolean };
}

export interface RunningProcess {
  readonly name: string;
  readonly pid?: number;
  /** Resolves when the process exits, however it exits. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** True while the process is running. */
  alive(): boolean;
  /** Stops the process (TERM, then KILL after a grace period) and waits for it. */
  stop(): Promise<void>;
  /**
   * What the process and every process it started have used so far; undefined where it cannot
   * be read (not Linux, a container on another kernel). `resetPeak`: after reading, start the
   * peak memory over from the current use, where the runtime can.
   */
  usage(resetPeak: boolean): Promise<ResourceUsage | undefined>;
  /**
   * Runs a command beside the process, where it can see it (docker: `docker exec` in its
   * container); absent where the process runs on this machine, whose commands see it already.
   */
  exec?(command: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }>;
}

/** A reading of a process's CPU and memory use (src/runner/cpu-usage.ts, cgroup-usage.ts). */
export interface ResourceUsage {
  /** CPU time, user and system, in ns from a fixed origin: only differences mean something. */
  cpuNs: number;
  /**
   * Peak memory in bytes. proc: the sum of the processes' peak resident sets (VmHWM), since the
   * last reset. cgroup: the container's peak charge (memory.peak; v1 memory.max_usage_in_bytes),
   * anonymous memory, page cache and kernel memory, since the container started.
   */
  peakMemoryBytes?: number;
  /** Whether the peak starts at the last reset (else at the process's start). */
  peakSinceReset: boolean;
  /** proc: the process group's /proc files; cgroup: the container's control group. */
  source: "proc" | "cgroup";
}

export interface Runtime {
  readonly kind: "native" | "docker";
  start(spec: ProcessSpec): Promise<RunningProcess>;
  /**
   * CPU time (ns) of the processes it runs outside this process's tree (containers), by name;
   * undefined when one cannot be read. Absent: what it starts descends from this process.
   */
  outsideCpuNs?(): Promise<ReadonlyMap<string, number> | undefined>;
}
