import { startProcess, type ManagedProcess } from "../util/processes.js";
import type { ProcessSpec, ResourceUsage, RunningProcess, Runtime } from "./runtime.js";
import { groupUsageReader } from "./cpu-usage.js";

/**
 * The command line that caps a process's memory natively (pure): `prlimit --data=N` runs the
 * command with RLIMIT_DATA set, which bounds the heap and private writable mappings (a cap on
 * address space would stop runtimes that reserve large ranges up front, such as V8 or the JVM).
 */
export function limitedCommand(command: string, args: string[], memoryBytes?: number): [string, string[]] {
  if (memoryBytes === undefined) return [command, args];
  return ["prlimit", [`--data=${memoryBytes}`, "--", command, ...args]];
}

/** Starts processes on this machine, pinned with taskset, each in its own process group. */
export class NativeRuntime implements Runtime {
  readonly kind = "native" as const;

  async start(spec: ProcessSpec): Promise<RunningProcess> {
    const [command, args] = limitedCommand(spec.command, spec.args, spec.memoryBytes);
    const proc = await startProcess({
      name: spec.name,
      command,
      args,
      cpus: spec.cpus,
      logFile: spec.logFile,
      ...(spec.env ? { env: spec.env } : {}),
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
    });
    return new NativeProcess(proc);
  }
}

class NativeProcess implements RunningProcess {
  constructor(private readonly proc: ManagedProcess) {}
  get name(): string {
    return this.proc.name;
  }
  get pid(): number | undefined {
    return this.proc.pid;
  }
  get exited(): Promise<{ code: number | null; signal: string | null }> {
    return this.proc.exited;
  }
  alive(): boolean {
    return this.proc.alive();
  }
  /** From /proc, over the process group (src/runner/cpu-usage.ts). */
  usage(resetPeak: boolean): Promise<ResourceUsage | undefined> {
    if (this.pid === undefined) return Promise.resolve(undefined);
    this.readUsage ??= groupUsageReader(this.pid);
    return this.readUsage(resetPeak);
  }
  private readUsage: ((resetPeak: boolean) => Promise<ResourceUsage | undefined>) | undefined;
  /**
   * Stops the process and whatever is left of its group: when a master process dies on its own,
   * its workers (same group) would otherwise go on running.
   */
  async stop(): Promise<void> {
    await this.proc.stop();
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {
      // the group is gone
    }
  }
}
