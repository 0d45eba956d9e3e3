import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import type { Socket } from "node:net";

/**
 * Children die with this process, however it dies (kill -9, the OOM killer, a cancelled CI job),
 * without relying on its own cleanup. Two mechanisms, both the kernel's doing:
 *
 * - each child is started through util-linux's `setpriv --pdeathsig KILL`: the kernel kills it
 *   when the thread that forked it (Node's main thread) exits. The setting survives the `exec`
 *   of taskset, prlimit and the program, but not a `fork`: an nginx master's workers do not
 *   have it.
 * - so a guard (one small `awk` per process, in its own session so that a signal to this
 *   process's group spares it) reads the process groups in use from a pipe; when the pipe
 *   closes, which the kernel does when this process ends, it kills every group still listed,
 *   workers included. A group leaves the list once nothing of it runs, so a number the kernel
 *   gives to a new group later is never touched.
 */

/** `+PGID` adds a group, `-PGID` drops it; at the end of its input each group left is killed. */
const GUARD_PROGRAM =
  '/^\\+[0-9]+$/ { g[substr($0, 2)] = 1 } /^-[0-9]+$/ { delete g[substr($0, 2)] } END { for (k in g) system("kill -KILL -" k " 2>/dev/null") }';

/** util-linux's, beside taskset and prlimit; and the guard's interpreter (POSIX). */
const SETPRIV = "setpriv";
const AWK = "awk";

let guard: ChildProcess | undefined;
/** The groups the guard holds: it runs while there is one. */
const groups = new Set<number>();
let pdeathsig: boolean | undefined;

/** True when `setpriv --pdeathsig` works here (Linux with util-linux 2.33 or later). */
function pdeathsigWorks(): boolean {
  pdeathsig ??= spawnSync(SETPRIV, ["--pdeathsig", "KILL", "--", "true"], { stdio: "ignore" }).status === 0;
  return pdeathsig;
}

/** `command` wrapped so that the kernel kills it when this process's main thread exits (`works`: setpriv can). */
export function diesWithParent(
  command: string,
  args: string[],
  works = pdeathsigWorks(),
): [string, string[]] {
  return works ? [SETPRIV, ["--pdeathsig", "KILL", "--", command, ...args]] : [command, args];
}

function startGuard(): ChildProcess {
  const child = spawn(AWK, [GUARD_PROGRAM], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  child.once("error", () => undefined); // no awk: setpriv alone
  child.stdin?.on("error", () => undefined);
  child.unref();
  (child.stdin as Socket | null)?.unref(); // neither keeps this process alive
  return child;
}

/** The guard kills this process group if this process ends first. */
export function guardGroup(pgid: number): void {
  groups.add(pgid);
  guard ??= startGuard();
  guard.stdin?.write(`+${pgid}\n`);
}

/**
 * Nothing of this group runs any more: the guard forgets it. With the last group the guard ends
 * too (resolved once it has), so that nothing of this process's runs outlives them.
 */
export async function releaseGroup(pgid: number): Promise<void> {
  if (!groups.delete(pgid) || !guard) return;
  guard.stdin?.write(`-${pgid}\n`);
  if (groups.size > 0) return;
  const idle = guard;
  guard = undefined;
  if (idle.exitCode !== null || idle.signalCode !== null || idle.pid === undefined) return;
  const ended = once(idle, "exit").catch(() => undefined);
  idle.stdin?.end();
  await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
}
