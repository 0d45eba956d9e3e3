import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { descendants, processGroupMembers } from "../../support/runner/helpers.js";

// A parent killed outright (kill -9: no handler, no 'exit' event) takes its children with it:
// src/util/child-guard.ts. The parent is a real Node process using the built startProcess.

const PROCESSES = path.join(PROJECT_ROOT, "dist", "src", "util", "processes.js");
const WAIT = { timeout: 5000, interval: 50 };

/** A Node parent that starts a shell with two children (a master and its workers) and waits. */
async function parentWithGroup(): Promise<{ parent: ChildProcess; pgid: number }> {
  const program = `
    const { startProcess } = await import(${JSON.stringify(PROCESSES)});
    const p = await startProcess({ name: "master", command: "sh", args: ["-c", "sleep 60 & sleep 60 & wait"], cpus: [0] });
    process.stdout.write(p.pid + "\\n");
    setInterval(() => undefined, 1000);`;
  const parent = spawn(process.execPath, ["--input-type=module", "-e", program], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(parent.stdout, "data")) as [Buffer];
  const pgid = Number(line.toString().trim());
  await vi.waitFor(() => expect(processGroupMembers(pgid)).toHaveLength(3), WAIT);
  return { parent, pgid };
}

describe("children die with their parent", () => {
  it("kill -9 of the parent: the whole group goes, workers included", async () => {
    const { parent, pgid } = await parentWithGroup();
    parent.kill("SIGKILL");
    await vi.waitFor(() => expect(processGroupMembers(pgid)).toEqual([]), WAIT);
  });

  it("the leader goes by the kernel's parent-death signal alone (the guard killed first)", async () => {
    const { parent, pgid } = await parentWithGroup();
    const guard = descendants(parent.pid!).find((p) => p.cmd.startsWith("awk"));
    expect(guard).toBeDefined();
    process.kill(guard!.pid, "SIGKILL");
    await vi.waitFor(
      () => expect(descendants(parent.pid!).map((p) => p.pid)).not.toContain(guard!.pid),
      WAIT,
    );
    parent.kill("SIGKILL");
    await vi.waitFor(() => expect(processGroupMembers(pgid).map((p) => p.pid)).not.toContain(pgid), WAIT);
    // Without the guard nothing stops the workers: this test cleans up after itself.
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // gone already
    }
  });
});
