import { startProcess, type ManagedProcess } from "../util/processes.js";
import type { ProcessSpec, RunningProcess, Runtime } from "./runtime.js";

/** Starts processes on this machine, pinned with taskset, each in its own process group. */
export class NativeRuntime implements Runtime {
  readonly kind = "native" as const;

  async start(spec: ProcessSpec): Promise<RunningProcess> {
    const proc = await startProcess({
      name: spec.name,
      command: spec.command,
      args: spec.args,
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
