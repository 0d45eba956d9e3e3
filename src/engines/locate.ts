import { findExecutable } from "../util/paths.js";
import { runCommand } from "../util/processes.js";
import { UserError } from "../util/errors.js";
import type { EngineAdapter } from "./types.js";

/** Pure: the first x.y.z version in a tool's output, else its first line. */
function parseVersion(output: string): string {
  const match = /v?(\d+\.\d+(?:\.\d+)?)/.exec(output);
  return match?.[1] ?? output.trim().split("\n")[0] ?? "unknown";
}

/**
 * An adapter's `locate()`: finds `binary` and reads its version on the first call, its answer
 * (or error) kept for every later one; a UserError (exit 1: cannot run here) with `installHint`
 * when it is missing.
 */
export function locateOnce(
  binary: string,
  versionArgs: string[],
  installHint: string,
): EngineAdapter["locate"] {
  let located: ReturnType<EngineAdapter["locate"]> | undefined;
  const locate = async () => {
    const found = await findExecutable(binary);
    if (!found)
      throw new UserError(`${binary} not found on PATH, in .tools/bin or in sbin: ${installHint}`, 1);
    const { output } = await runCommand(found, versionArgs, { timeoutMs: 10_000 });
    return { path: found, version: parseVersion(output) };
  };
  return () => (located ??= locate());
}
