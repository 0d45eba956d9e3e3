import { readFile } from "node:fs/promises";
import { UserError } from "../../util/errors.js";

/**
 * Can this machine hold N concurrent connections? Before a 1000-VU run: the open-file limit
 * (inherited by the load generator, the proxy and the upstream), the ephemeral port range and
 * TIME_WAIT reuse. The Ocelot study hit exactly this ("apr_socket_recv: Transport endpoint is
 * not connected") and raised `ulimit -n` by hand.
 */

export interface SystemLimits {
  /** Soft and hard RLIMIT_NOFILE of this process (its children inherit them). */
  nofileSoft: number;
  nofileHard: number;
  /** net.ipv4.ip_local_port_range. */
  portRange: [number, number];
  /** net.ipv4.tcp_tw_reuse: 0 off, 1 on, 2 loopback only (the kernel's default). */
  twReuse: number;
}

export interface LimitsCheck {
  ok: boolean;
  /** Descriptors and ephemeral ports the run needs. */
  needed: { files: number; ports: number };
  problems: string[];
  /** Commands that fix the problems, to print as they are. */
  fixes: string[];
}

/** Descriptors beyond the connections: listeners, logs, pipes, the runtime's own. */
const FD_SLACK = 512;
/** Ports kept free for everything else the machine does. */
const PORT_SLACK = 1024;
const RECOMMENDED_NOFILE = 65535;

/**
 * Whether `connections` concurrent connections fit (pure). A proxied connection costs a
 * descriptor in the load generator, two in the proxy (client and upstream side) and one in the
 * upstream: 3N + slack is what a limit shared by all three must allow. Each connection also
 * takes an ephemeral port per hop (load generator -> proxy, proxy -> upstream). Without
 * keep-alive every request opens a new connection and leaves a TIME_WAIT socket behind for
 * 60 s, so the ports run out unless TIME_WAIT sockets can be reused.
 */
export function checkConcurrencyLimits(
  limits: SystemLimits,
  connections: number,
  options: { keepAlive?: boolean } = {},
): LimitsCheck {
  const files = 3 * connections + FD_SLACK;
  const ports = 2 * connections + PORT_SLACK;
  const problems: string[] = [];
  const fixes: string[] = [];
  if (limits.nofileSoft < files) {
    problems.push(
      `open-file limit (ulimit -n) is ${limits.nofileSoft}; ${connections} connections need at least ${files} ` +
        `(load generator + proxy on both sides + upstream)`,
    );
    const target = Math.max(RECOMMENDED_NOFILE, files);
    if (limits.nofileHard >= target) {
      fixes.push(`ulimit -n ${target}`);
    } else {
      fixes.push(
        `sudo prlimit --pid $$ --nofile=${target}:${target}   # or, for every new session, in /etc/security/limits.conf:`,
        `#   * soft nofile ${target}`,
        `#   * hard nofile ${target}`,
      );
    }
  }
  const [low, high] = limits.portRange;
  const available = high - low + 1;
  if (available < ports) {
    problems.push(
      `ephemeral port range ${low}-${high} holds ${available} ports; ${connections} connections need about ${ports}`,
    );
    fixes.push(`sudo sysctl -w net.ipv4.ip_local_port_range="1024 65535"`);
  }
  if (options.keepAlive === false && limits.twReuse === 0) {
    problems.push(
      "connections are not kept alive and TIME_WAIT reuse is off (net.ipv4.tcp_tw_reuse = 0): " +
        "the ephemeral ports run out after a few thousand requests",
    );
    fixes.push("sudo sysctl -w net.ipv4.tcp_tw_reuse=1");
  }
  return { ok: problems.length === 0, needed: { files, ports }, problems, fixes };
}

/** "Max open files  20000  20000  files" from /proc/PID/limits (pure). */
export function parseProcLimits(text: string): { soft: number; hard: number } | undefined {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!m) return undefined;
  const value = (v: string | undefined) => (v === "unlimited" || v === undefined ? Infinity : Number(v));
  return { soft: value(m[1]), hard: value(m[2]) };
}

/** "32768\t60999" (pure). */
export function parsePortRange(text: string): [number, number] | undefined {
  const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Reads the limits of this process and the kernel's settings (Linux /proc). */
export async function readSystemLimits(procRoot = "/proc"): Promise<SystemLimits> {
  const read = (file: string) => readFile(`${procRoot}/${file}`, "utf8").catch(() => "");
  const [limits, range, reuse] = await Promise.all([
    read("self/limits"),
    read("sys/net/ipv4/ip_local_port_range"),
    read("sys/net/ipv4/tcp_tw_reuse"),
  ]);
  const nofile = parseProcLimits(limits);
  return {
    // Unknown values (no /proc) are taken as unlimited: the check then cannot stop a run wrongly.
    nofileSoft: nofile?.soft ?? Infinity,
    nofileHard: nofile?.hard ?? Infinity,
    portRange: parsePortRange(range) ?? [1024, 65535],
    twReuse: reuse.trim() === "" ? 2 : Number(reuse.trim()),
  };
}

/** The message a run stops with: every problem, then the fix. */
function formatLimitsProblem(check: LimitsCheck, connections: number): string {
  return [
    `this machine cannot hold ${connections} concurrent connections:`,
    ...check.problems.map((p) => `  - ${p}`),
    "fix it with:",
    ...check.fixes.map((f) => `  ${f}`),
  ].join("\n");
}

/** Stops with the fix when the machine cannot hold `connections` connections. */
export async function assertConcurrencyLimits(
  connections: number,
  options: { keepAlive?: boolean } = {},
  limits?: SystemLimits,
): Promise<LimitsCheck> {
  const check = checkConcurrencyLimits(limits ?? (await readSystemLimits()), connections, options);
  if (!check.ok) throw new UserError(formatLimitsProblem(check, connections));
  return check;
}
