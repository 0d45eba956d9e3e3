/**
 * How the runner starts the processes of a cell (upstream, proxy), natively or in a
 * container. Both runtimes take the same spec so that a cell is described once.
 */
export interface ProcessSpec {
  /** Short role name used in logs and messages: "upstream", "proxy:nginx". */
  name: string;
  /** Native: the executable. Docker: the image reference. */
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
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
}

export interface Runtime {
  readonly kind: "native" | "docker";
  start(spec: ProcessSpec): Promise<RunningProcess>;
}
