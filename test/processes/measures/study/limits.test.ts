import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  assertConcurrencyLimits,
  checkConcurrencyLimits,
  parsePortRange,
  parseProcLimits,
  readSystemLimits,
  type SystemLimits,
} from "../../../../src/measures/study/limits.js";

const ROOMY: SystemLimits = { nofileSoft: 65535, nofileHard: 65535, portRange: [32768, 60999], twReuse: 2 };

describe("checkConcurrencyLimits", () => {
  const cases: Array<{
    name: string;
    limits: Partial<SystemLimits>;
    connections: number;
    keepAlive?: boolean;
    ok: boolean;
    fixes: string[];
  }> = [
    { name: "roomy machine, 1000 connections", limits: {}, connections: 1000, ok: true, fixes: [] },
    {
      name: "Debian's default 1024, 100 connections",
      limits: { nofileSoft: 1024 },
      connections: 100,
      ok: true,
      fixes: [],
    },
    {
      name: "Debian's default 1024, 1000 connections: raise the soft limit",
      limits: { nofileSoft: 1024 },
      connections: 1000,
      ok: false,
      fixes: ["ulimit -n 65535"],
    },
    {
      name: "exactly 3N + 512 is enough",
      limits: { nofileSoft: 3512, nofileHard: 3512 },
      connections: 1000,
      ok: true,
      fixes: [],
    },
    {
      name: "hard limit too low as well: prlimit and limits.conf",
      limits: { nofileSoft: 1024, nofileHard: 4096 },
      connections: 1000,
      ok: false,
      fixes: [
        "sudo prlimit --pid $$ --nofile=65535:65535   # or, for every new session, in /etc/security/limits.conf:",
        "#   * soft nofile 65535",
        "#   * hard nofile 65535",
      ],
    },
    {
      name: "a narrow port range",
      limits: { portRange: [60000, 61000] },
      connections: 1000,
      ok: false,
      fixes: ['sudo sysctl -w net.ipv4.ip_local_port_range="1024 65535"'],
    },
    {
      name: "no keep-alive and no TIME_WAIT reuse",
      limits: { twReuse: 0 },
      connections: 1000,
      keepAlive: false,
      ok: false,
      fixes: ["sudo sysctl -w net.ipv4.tcp_tw_reuse=1"],
    },
    {
      name: "TIME_WAIT reuse off does not matter with keep-alive",
      limits: { twReuse: 0 },
      connections: 1000,
      keepAlive: true,
      ok: true,
      fixes: [],
    },
    {
      name: "everything at once, every fix",
      limits: { nofileSoft: 1024, portRange: [60000, 61000], twReuse: 0 },
      connections: 1000,
      keepAlive: false,
      ok: false,
      fixes: [
        "ulimit -n 65535",
        'sudo sysctl -w net.ipv4.ip_local_port_range="1024 65535"',
        "sudo sysctl -w net.ipv4.tcp_tw_reuse=1",
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const check = checkConcurrencyLimits({ ...ROOMY, ...c.limits }, c.connections, {
        keepAlive: c.keepAlive,
      });
      expect(check.ok).toBe(c.ok);
      expect(check.fixes).toEqual(c.fixes);
      expect(check.problems.length > 0).toBe(!c.ok);
    });
  }

  it("says what is needed", () => {
    expect(checkConcurrencyLimits(ROOMY, 1000).needed).toEqual({ files: 3512, ports: 3024 });
  });
});

describe("parsers", () => {
  it("reads Max open files from /proc/PID/limits", () => {
    const text = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
`;
    expect(parseProcLimits(text)).toEqual({ soft: 1024, hard: 524288 });
    expect(
      parseProcLimits("Max open files            unlimited            unlimited            files"),
    ).toEqual({
      soft: Infinity,
      hard: Infinity,
    });
    expect(parseProcLimits("nothing")).toBeUndefined();
  });
  it("reads the port range", () => {
    expect(parsePortRange("32768\t60999\n")).toEqual([32768, 60999]);
    expect(parsePortRange("")).toBeUndefined();
  });
});

describe("on this machine", () => {
  it("reads the same soft limit as the shell does", async () => {
    const shell = spawnSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).stdout.trim();
    const limits = await readSystemLimits();
    expect(String(limits.nofileSoft)).toBe(shell === "unlimited" ? "Infinity" : shell);
    expect(limits.portRange[0]).toBeLessThan(limits.portRange[1]);
  });

  it("stops a run with the fix, from a /proc that says 1024", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "proxybench-proc-"));
    await mkdir(path.join(root, "self"), { recursive: true });
    await mkdir(path.join(root, "sys/net/ipv4"), { recursive: true });
    await writeFile(
      path.join(root, "self/limits"),
      "Max open files            1024                 1048576              files\n",
    );
    await writeFile(path.join(root, "sys/net/ipv4/ip_local_port_range"), "32768\t60999\n");
    await writeFile(path.join(root, "sys/net/ipv4/tcp_tw_reuse"), "2\n");
    const limits = await readSystemLimits(root);
    await expect(assertConcurrencyLimits(1000, {}, limits)).rejects.toThrow(
      /cannot hold 1000 concurrent connections:\n {2}- open-file limit \(ulimit -n\) is 1024; .*\nfix it with:\n {2}ulimit -n 65535/,
    );
    await expect(assertConcurrencyLimits(100, {}, limits)).resolves.toMatchObject({ ok: true });
  });
});
