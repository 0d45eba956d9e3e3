import { findExecutable } from "../src/util/paths.js";
import { startProcess, type ManagedProcess } from "../src/util/processes.js";

/** The built-in upstream on a loopback port the kernel picks, pinned to `cpus`. */
export async function startUpstream(
  cpus: number[],
): Promise<{ baseUrl: string; port: number; proc: ManagedProcess }> {
  const bin = await findExecutable("proxybench-upstream");
  if (!bin) {
    throw new Error(
      "proxybench-upstream not found: build it with `cd upstream && go build -o ../.tools/bin/proxybench-upstream .`",
    );
  }
  const proc = await startProcess({
    name: "upstream",
    command: bin,
    args: ["--listen", "127.0.0.1:0"],
    cpus,
  });
  for (let i = 0; i < 100; i++) {
    const port = /listening on 127\.0\.0\.1:(\d+)/.exec(proc.output())?.[1];
    if (port) return { baseUrl: `http://127.0.0.1:${port}`, port: Number(port), proc };
    if (!proc.alive()) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the upstream did not start: ${proc.output()}`);
}
