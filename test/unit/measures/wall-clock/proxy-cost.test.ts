import { describe, expect, it } from "vitest";
import { parseCount } from "../../../../src/runner/cgroup-peak.js";
import {
  cgroupFolders,
  parseCgroupMounts,
  parseCpuStatNs,
  parseProcCgroup,
} from "../../../../src/runner/cgroup-usage.js";
import { parseSchedstat, parseStatusKb } from "../../../../src/runner/cpu-usage.js";
import { windowCost } from "../../../../src/measures/wall-clock/proxy-cost.js";
import { ProxyCost } from "../../../../src/results/schema.js";

// Texts as the kernel writes them: this machine's (Linux 6.18, cgroup v1 controllers beside an
// empty unified hierarchy, as docker's hosts with hybrid cgroups have them) and a cgroup v2 host
// (Ubuntu 22.04/24.04, GitHub's runners: docker puts a container in system.slice/docker-ID.scope).
const ID = "3f2a9c41d6e7b8a90123456789abcdef0123456789abcdef0123456789abcdef";

const HYBRID_MOUNTINFO = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`;
const HYBRID_CGROUP = `9:name=systemd:/docker/${ID}
4:memory:/docker/${ID}
3:cpuset:/docker/${ID}
2:cpuacct:/docker/${ID}
1:cpu:/docker/${ID}
0::/
`;
const V2_MOUNTINFO = `24 1 259:1 / / rw,relatime shared:1 - ext4 /dev/root rw,discard
35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`;
const V2_CGROUP = `0::/system.slice/docker-${ID}.scope\n`;
const V2_CPU_STAT = `usage_usec 1523456
user_usec 1023456
system_usec 500000
core_sched.force_idle_usec 0
nr_periods 0
nr_throttled 0
throttled_usec 0
nr_bursts 0
burst_usec 0
`;

describe("the proxy's usage from /proc", () => {
  it("reads a thread's run time in ns from schedstat, and refuses what is not one", () => {
    expect(parseSchedstat("108643 3190497 2\n")).toBe(108643);
    expect(parseSchedstat("41234567890 120000 1873")).toBe(41234567890);
    expect(parseSchedstat("")).toBeUndefined();
    expect(parseSchedstat("gone")).toBeUndefined();
  });

  it("reads VmHWM and VmRSS in kB from a status file", () => {
    const status =
      "Name:\tnginx\nUmask:\t0022\nVmPeak:\t   13316 kB\nVmHWM:\t    5236 kB\nVmRSS:\t    4120 kB\nThreads:\t1\n";
    expect(parseStatusKb(status, "VmHWM")).toBe(5236);
    expect(parseStatusKb(status, "VmRSS")).toBe(4120);
    // a kernel thread has no memory lines
    expect(parseStatusKb("Name:\tkthreadd\nThreads:\t1\n", "VmHWM")).toBeUndefined();
  });
});

describe("the container's usage from its cgroup", () => {
  it("parses /proc/PID/cgroup lines, v1 controllers and the v2 line", () => {
    expect(parseProcCgroup(HYBRID_CGROUP)).toContainEqual({
      hierarchy: 2,
      controllers: ["cpuacct"],
      path: `/docker/${ID}`,
    });
    expect(parseProcCgroup("3:cpu,cpuacct:/docker/x\n0::/\n")).toEqual([
      { hierarchy: 3, controllers: ["cpu", "cpuacct"], path: "/docker/x" },
      { hierarchy: 0, controllers: [], path: "/" },
    ]);
  });

  it("finds only the cgroup mounts of a mountinfo, with their controllers and escaped paths", () => {
    const mounts = parseCgroupMounts(HYBRID_MOUNTINFO);
    expect(mounts).toHaveLength(6);
    expect(mounts[1]).toEqual({
      version: 1,
      root: "/",
      mountPoint: "/sys/fs/cgroup/cpuacct",
      controllers: ["rw", "cpuacct"],
    });
    expect(mounts[5]).toMatchObject({ version: 2, mountPoint: "/sys/fs/cgroup/unified" });
    const spaced = parseCgroupMounts("50 31 0:40 / /mnt/my\\040cgroups rw - cgroup2 cgroup2 rw\n");
    expect(spaced[0]?.mountPoint).toBe("/mnt/my cgroups");
  });

  it("uses the v1 cpuacct and memory controllers on a hybrid host, not the unified hierarchy", () => {
    expect(cgroupFolders(HYBRID_CGROUP, HYBRID_MOUNTINFO)).toEqual({
      version: 1,
      cpu: `/sys/fs/cgroup/cpuacct/docker/${ID}`,
      memory: `/sys/fs/cgroup/memory/docker/${ID}`,
    });
    const joined = "11:cpu,cpuacct:/docker/x\n0::/\n";
    const joinedMounts = "33 31 0:30 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n";
    expect(cgroupFolders(joined, joinedMounts)).toEqual({
      version: 1,
      cpu: "/sys/fs/cgroup/cpu,cpuacct/docker/x",
    });
  });

  it("uses the unified hierarchy on a cgroup v2 host", () => {
    const folder = `/sys/fs/cgroup/system.slice/docker-${ID}.scope`;
    expect(cgroupFolders(V2_CGROUP, V2_MOUNTINFO)).toEqual({ version: 2, cpu: folder, memory: folder });
  });

  it("maps a path under a mount that shows a sub-tree, and refuses one outside it", () => {
    const nested = "60 31 0:30 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    expect(cgroupFolders("0::/docker/abc/proxy\n", nested)?.cpu).toBe("/sys/fs/cgroup/proxy");
    expect(cgroupFolders("0::/docker/abc\n", nested)?.cpu).toBe("/sys/fs/cgroup");
    expect(cgroupFolders("0::/docker/abcdef\n", nested)).toBeUndefined();
    expect(cgroupFolders("0::/x\n", "")).toBeUndefined();
  });

  it("reads usage_usec of cpu.stat as ns, and one-number files", () => {
    expect(parseCpuStatNs(V2_CPU_STAT)).toBe(1_523_456_000);
    expect(parseCpuStatNs("user_usec 1\n")).toBeUndefined();
    expect(parseCount("1162873865620\n")).toBe(1162873865620);
    expect(parseCount("max\n")).toBeUndefined();
  });
});

describe("the cost of a window", () => {
  const proc = {
    cpuNs: 0,
    peakMemoryBytes: 12.5 * 1024 * 1024,
    peakSinceReset: true,
    source: "proc" as const,
  };

  it("takes the idle rate off the time outside the window, and gives per request and per CPU-second", () => {
    // 5 s window inside a 5.8 s span; 0.21 s of CPU, 0.01 core idle: 0.008 s is start-up and exit
    const cost = windowCost({
      cpuNs: 210_000_000,
      spanS: 5.8,
      windowS: 5,
      requests: 5000,
      idleCores: 0.01,
      end: proc,
    });
    expect(ProxyCost.parse(cost)).toEqual(cost);
    expect(cost.idleCpuS).toBeCloseTo(0.008, 12);
    expect(cost.cpuS).toBeCloseTo(0.202, 12);
    expect(cost.cpuPerRequestUs).toBeCloseTo(40.4, 9);
    expect(cost.requestsPerCpuS).toBeCloseTo(5000 / 0.202, 6);
    expect(cost).toMatchObject({ source: "proc", windowS: 5, peakMemoryMiB: 12.5, peakSince: "repetition" });
  });

  it("keeps ns resolution: 1 us of CPU more over 5000 requests shows", () => {
    const a = windowCost({ cpuNs: 200_000_000, spanS: 5, windowS: 5, requests: 5000, end: proc });
    const b = windowCost({ cpuNs: 200_001_000, spanS: 5, windowS: 5, requests: 5000, end: proc });
    expect(b.cpuPerRequestUs! - a.cpuPerRequestUs!).toBeCloseTo(0.0002, 12);
  });

  it("never takes off more than the span used, and has no per-request figure without requests", () => {
    const cost = windowCost({
      cpuNs: 1_000_000,
      spanS: 10,
      windowS: 1,
      requests: 0,
      idleCores: 0.5,
      end: proc,
    });
    expect(cost.cpuS).toBe(0);
    expect(cost.cpuPerRequestUs).toBeUndefined();
    expect(cost.requestsPerCpuS).toBeUndefined();
  });

  it("an engine that measured no window (it failed) counts the whole span; a cgroup peak is since the start", () => {
    const end = {
      cpuNs: 0,
      peakMemoryBytes: 64 * 1024 * 1024,
      peakSinceReset: false,
      source: "cgroup" as const,
    };
    const cost = windowCost({ cpuNs: 50_000_000, spanS: 2, windowS: 0, requests: 100, idleCores: 0.2, end });
    expect(cost).toMatchObject({ cpuS: 0.05, idleCpuS: 0, windowS: 2, source: "cgroup", peakSince: "start" });
  });
});
