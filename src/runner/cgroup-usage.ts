import { readFile } from "node:fs/promises";
import { parseCount, windowPeak, type WindowPeak } from "./cgroup-peak.js";
import type { ResourceUsage } from "./runtime.js";
import { withoutUndefined } from "../util/objects.js";

/**
 * What a container has used so far, from its control group: CPU time of every process it ever
 * ran (live or ended, so nothing is lost when a worker exits) in the cgroup's own counter, and its
 * peak memory charge. cgroup v2 (unified): cpu.stat `usage_usec`, memory.peak. cgroup v1 (a
 * hybrid host, where docker puts containers under the v1 controllers): cpuacct.usage (ns),
 * memory.max_usage_in_bytes, each started over for a repetition by src/runner/cgroup-peak.ts.
 */

interface CgroupMount {
  version: 1 | 2;
  /** Where the hierarchy is mounted. */
  mountPoint: string;
  /** The hierarchy's folder that the mount shows (`/` unless a namespace or bind narrowed it). */
  root: string;
  /** v1: the controllers of the hierarchy (from the super options). */
  controllers: string[];
}

/** Lines of /proc/PID/cgroup: `ID:controllers:path` (pure). */
export function parseProcCgroup(text: string) {
  return text
    .split("\n")
    .map((line) => /^(\d+):([^:]*):(.*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({
      hierarchy: Number(m[1]),
      /** Controllers of a v1 hierarchy (`cpu`, `cpuacct`, `name=systemd`); empty for v2. */
      controllers: m[2] === "" ? [] : m[2]!.split(","),
      path: m[3]!,
    }));
}

/** `\040` and the like of /proc/self/mountinfo back to characters (pure). */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** The cgroup mounts of a /proc/self/mountinfo text (pure). */
export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split("\n")) {
    const [before, after] = line.split(" - ");
    if (before === undefined || after === undefined) continue;
    const fields = before.split(" ");
    const [fsType, , superOptions = ""] = after.split(" ");
    if (fsType !== "cgroup" && fsType !== "cgroup2") continue;
    mounts.push({
      version: fsType === "cgroup2" ? 2 : 1,
      root: unescapeMount(fields[3] ?? "/"),
      mountPoint: unescapeMount(fields[4] ?? ""),
      controllers: fsType === "cgroup" ? superOptions.split(",") : [],
    });
  }
  return mounts;
}

/** The folder of a process's cgroup under a mount, when the mount shows it (pure). */
function folderUnder(mount: CgroupMount, cgroupPath: string): string | undefined {
  const root = mount.root === "/" ? "" : mount.root;
  if (root !== "" && cgroupPath !== root && !cgroupPath.startsWith(`${root}/`)) return undefined;
  const rest = cgroupPath.slice(root.length);
  return `${mount.mountPoint}${rest === "/" ? "" : rest}`;
}

/** Where the process's CPU and memory counters are (pure): v1 controllers first, then v2. */
export function cgroupFolders(
  procCgroup: string,
  mountinfo: string,
): { version: 1 | 2; cpu: string; memory?: string } | undefined {
  const lines = parseProcCgroup(procCgroup);
  const mounts = parseCgroupMounts(mountinfo);
  const v1 = (controller: string): string | undefined => {
    const line = lines.find((l) => l.hierarchy !== 0 && l.controllers.includes(controller));
    const mount = mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
    return line && mount ? folderUnder(mount, line.path) : undefined;
  };
  const cpu = v1("cpuacct");
  if (cpu !== undefined) return { version: 1, cpu, ...withoutUndefined({ memory: v1("memory") }) };
  const unified = lines.find((l) => l.hierarchy === 0 && l.controllers.length === 0);
  const mount = mounts.find((m) => m.version === 2);
  const folder = unified && mount ? folderUnder(mount, unified.path) : undefined;
  return folder === undefined ? undefined : { version: 2, cpu: folder, memory: folder };
}

/** `usage_usec` of a cgroup v2 cpu.stat, in ns (pure). */
export function parseCpuStatNs(text: string): number | undefined {
  const usec = /^usage_usec (\d+)$/m.exec(text)?.[1];
  return usec === undefined ? undefined : Number(usec) * 1000;
}

/** The docker runtime's `usage()` of a container, and `close()` to stop what its peak keeps open. */
export type CgroupUsageReader = ((resetPeak?: boolean) => Promise<ResourceUsage | undefined>) & {
  close(): Promise<void>;
};

type Folders = NonNullable<ReturnType<typeof cgroupFolders>>;

async function foldersOf(pid: number): Promise<Folders | undefined> {
  return Promise.all([
    readFile(`/proc/${pid}/cgroup`, "utf8"),
    readFile("/proc/self/mountinfo", "utf8"),
  ]).then(
    ([cgroup, mountinfo]) => cgroupFolders(cgroup, mountinfo),
    () => undefined,
  );
}

async function cpuNsOf(where: Folders): Promise<number | undefined> {
  const text = await readFile(
    where.version === 2 ? `${where.cpu}/cpu.stat` : `${where.cpu}/cpuacct.usage`,
    "utf8",
  ).catch(() => "");
  return where.version === 2 ? parseCpuStatNs(text) : parseCount(text);
}

/**
 * A container's usage, found through a host pid inside it: its CPU time and its peak memory,
 * which `resetPeak` starts over after the reading (src/runner/cgroup-peak.ts). Undefined
 * readings when the pid's cgroup is not on this machine's filesystem.
 */
export function cgroupUsageReader(pid: number): CgroupUsageReader {
  let found: Promise<{ where: Folders; peak?: WindowPeak } | undefined> | undefined;
  let peakSinceReset = false;
  const usage = async (resetPeak = false): Promise<ResourceUsage | undefined> => {
    found ??= foldersOf(pid).then((where) =>
      where === undefined
        ? undefined
        : { where, ...(where.memory !== undefined ? { peak: windowPeak(where.memory, where.version) } : {}) },
    );
    const at = await found;
    if (at === undefined) return undefined;
    const cpuNs = await cpuNsOf(at.where);
    if (cpuNs === undefined) return undefined;
    const reading: ResourceUsage = {
      cpuNs,
      ...withoutUndefined({ peakMemoryBytes: await at.peak?.read() }),
      peakSinceReset,
      source: "cgroup",
    };
    if (resetPeak && at.peak !== undefined) peakSinceReset = await at.peak.reset();
    return reading;
  };
  return Object.assign(usage, {
    async close() {
      await (await found)?.peak?.close();
    },
  });
}
