import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorText, main } from "../../../src/cli.js";
import { UserError } from "../../../src/util/errors.js";

/** Runs the CLI in this process with PATH replaced; returns the exit code and stderr. */
async function cli(args: string[], env: { PATH: string }): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const savedPath = process.env.PATH;
  process.env.PATH = env.PATH;
  try {
    const code = await main(["node", "proxybench", ...args]);
    return { code, stderr };
  } finally {
    process.env.PATH = savedPath;
    spy.mockRestore();
  }
}

describe("one rule for missing tools", () => {
  afterEach(() => {
    process.exitCode = 0;
  });

  it("taskset missing: exit 1, one message with the fix, no stack, no results folder", async () => {
    const out = path.join(await mkdtemp(path.join(os.tmpdir(), "pb-missing-")), "run");
    const { code, stderr } = await cli(["run", "--out", out, "-d", "1", "-w", "0"], { PATH: "/nonexistent" });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^proxybench: cannot run here/);
    expect(stderr).toContain("taskset not found");
    expect(stderr).toContain("apt-get install util-linux");
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  it("the stack of an error shows only with --debug", () => {
    const plain = new Error("boom");
    expect(errorText(plain, false)).toBe("boom (run with --debug for the stack)");
    expect(errorText(plain, true)).toMatch(/^Error: boom\n\s+at /);
    expect(errorText(new UserError("bad flag"), false)).toBe("bad flag");
  });
});
