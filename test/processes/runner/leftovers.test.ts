import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { checkLeftovers } from "../../../src/doctor/checks.js";
import { findLeftovers, openRunLedger, type Leftover } from "../../../src/runner/leftovers.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { processGroupMembers } from "../../support/runner/helpers.js";

// What a run killed outright leaves, as the next run and doctor find it (src/runner/leftovers.ts).
// The killed run is a real Node process that opens the ledger and starts a master with a worker;
// its guard is killed first (as a cgroup-wide OOM kill would), so the worker outlives it.
// The registry lives under TMPDIR: this file's own, so that no other run on the machine sees
// these leftovers.

const DIST = path.join(PROJECT_ROOT, "dist", "src");
const WAIT = { timeout: 5000, interval: 50 };
const layout = (core: number) => ({ loadgen: [core], proxy: [core], upstream: [core] });

let tmp: string;
const savedTmpdir = process.env.TMPDIR;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "pb-leftovers-"));
  process.env.TMPDIR = tmp;
});
afterAll(async () => {
  process.env.TMPDIR = savedTmpdir;
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  await rm(tmp, { recursive: true, force: true });
});

/** A run of `dir` killed with kill -9 after starting a master and its worker on `core`; the worker's group. */
async function killedRun(dir: string, core: number): Promise<number> {
  const program = `
    const { openRunLedger } = await import(${JSON.stringify(path.join(DIST, "runner", "leftovers.js"))});
    const { startProcess } = await import(${JSON.stringify(path.join(DIST, "util", "processes.js"))});
    await openRunLedger(${JSON.stringify(dir)}, ${JSON.stringify(layout(core))}, () => undefined);
    const p = await startProcess({ name: "proxy:nginx", command: "sh", args: ["-c", "sleep 60 & wait"], cpus: [${core}] });
    process.stdout.write(p.pid + "\\n");
    setInterval(() => undefined, 1000);`;
  const run = spawn(process.execPath, ["--input-type=module", "-e", program], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, TMPDIR: tmp },
  });
  const [line] = (await once(run.stdout, "data")) as [Buffer];
  const pgid = Number(line.toString().trim());
  await vi.waitFor(() => expect(processGroupMembers(pgid)).toHaveLength(2), WAIT);
  const guard = (await readdir("/proc")).find((pid) => isGuardOf(pid, run.pid!));
  if (guard) process.kill(Number(guard), "SIGKILL");
  run.kill("SIGKILL");
  // the master dies with the run (its parent-death signal), the worker stays
  await vi.waitFor(() => expect(processGroupMembers(pgid).map((p) => p.pid)).not.toContain(pgid), WAIT);
  expect(processGroupMembers(pgid)).toHaveLength(1);
  return pgid;
}

function isGuardOf(pid: string, parent: number): boolean {
  const member = processGroupMembers(Number(pid)).find((p) => p.pid === Number(pid));
  return member !== undefined && member.ppid === parent && member.cmd.startsWith("awk");
}

describe("leftovers of a run killed outright", () => {
  it("doctor names them with the command that stops them; other runs on their cores refuse; the folder's next run stops them", async () => {
    const dir = path.join(tmp, "killed");
    const pgid = await killedRun(dir, 0);
    const found = findLeftovers();
    expect(found).toEqual<Leftover[]>([
      { dir, name: "proxy:nginx", pgid, pids: processGroupMembers(pgid).map((p) => p.pid), cpus: [0] },
    ]);
    const check = checkLeftovers(found);
    expect(check.level).toBe("warn");
    expect(check.detail).toContain(`proxy:nginx (pid ${found[0]!.pids[0]}, cores 0) of ${dir}`);
    expect(check.fix).toContain(`kill -KILL -- -${pgid}`);

    // another folder's run on core 0 refuses, naming them; on another core it starts
    await expect(openRunLedger(path.join(tmp, "other"), layout(0), () => undefined)).rejects.toThrow(
      `cores 0 are still used by processes that earlier proxybench runs left running: proxy:nginx (pid ${found[0]!.pids[0]}, cores 0) of ${dir}. Stop them with: kill -KILL -- -${pgid}`,
    );
    if (os.cpus().length > 1)
      (await openRunLedger(path.join(tmp, "beside"), layout(1), () => undefined)).close();

    // a run of the same folder (a --resume) stops them first and says so
    const said: string[] = [];
    await writeFile(path.join(dir, "results.json.tmp-4242"), "");
    const ledger = await openRunLedger(dir, layout(0), (line) => said.push(line));
    ledger.close();
    expect(processGroupMembers(pgid)).toEqual([]);
    expect(said).toEqual([
      `stopped what an earlier run of this folder left running: ${check.detail.split(": ")[1]}`,
    ]);
    expect(await readdir(dir)).toEqual(["work"]); // the temporary results file went too
    expect(findLeftovers()).toEqual([]);
    expect(checkLeftovers([]).level).toBe("ok");
  });

  it("a folder whose run is alive is refused, naming the run", async () => {
    const dir = path.join(tmp, "alive");
    const program = `
      const { openRunLedger } = await import(${JSON.stringify(path.join(DIST, "runner", "leftovers.js"))});
      await openRunLedger(${JSON.stringify(dir)}, ${JSON.stringify(layout(0))}, () => undefined);
      process.stdout.write("open\\n");
      setInterval(() => undefined, 1000);`;
    const run = spawn(process.execPath, ["--input-type=module", "-e", program], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, TMPDIR: tmp },
    });
    try {
      await once(run.stdout, "data");
      await expect(openRunLedger(dir, layout(0), () => undefined)).rejects.toThrow(
        `${dir} is in use by another proxybench run (pid ${run.pid}); wait for it or stop it: kill ${run.pid}`,
      );
    } finally {
      run.kill("SIGKILL");
    }
  });
});
