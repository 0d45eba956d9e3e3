import { startProcess } from "../util/processes.js";
import { type ProcessSpec, type RunningProcess, type Runtime } from "./runtime.js";
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

/**
 * Starts processes on this machine, pinned with taskset, each in its own process group; stopping
 * one stops what is left of its group (a master's workers), and its usage is read from /proc
 * over the group (src/runner/cpu-usage.ts).
 */
export class NativeRuntime implements Runtime {
  readonly kind = "native" as const;

  async start(spec: ProcessSpec): Promise<RunningProcess> {
    const [command, args] = limitedCommand(spec.command, spec.args, spec.memoryBytes);
    const proc = await startProcess({ ...spec, command, args });
    return {
      name: proc.name,
      ...(proc.pid === undefined ? {} : { pid: proc.pid }),
      exited: proc.exited,
      alive: () => proc.alive(),
      stop: async () => void (await proc.stop()),
      usage: proc.pid === undefined ? () => Promise.resolve(undefined) : groupUsageReader(proc.pid),
    };
  }
}
