import { spawnSync } from "node:child_process";

/**
 * A noisy neighbour: a busy loop pinned to a core, bounded in time, started the way another
 * tenant's process runs, outside this process's tree (a shell starts it in the background and
 * exits, so init adopts it). Noise detection leaves the benchmark's own descendants out; a
 * neighbour started as a plain child would be counted as the benchmark's own work.
 */
export interface Neighbour {
  pid: number;
  stop(): void;
}

export function startNeighbour(core: string, seconds: number): Neighbour {
  const loop = `taskset -c ${core} timeout ${seconds} sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!`;
  const { stdout, status } = spawnSync("sh", ["-c", loop], { encoding: "utf8" });
  const pid = Number(stdout.trim());
  if (status !== 0 || !Number.isInteger(pid) || pid <= 0) {
    throw new Error(`could not start the busy loop on core ${core} (${stdout.trim()})`);
  }
  return {
    pid,
    stop: () => {
      try {
        process.kill(pid, "SIGTERM"); // timeout passes it on to the loop
      } catch {
        // already gone (its time was up)
      }
    },
  };
}
