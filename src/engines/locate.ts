import { findExecutable } from "../util/paths.js";
import { runCommand } from "../util/processes.js";
import { UserError } from "../util/errors.js";

/** Pure: the first x.y.z version in a tool's output, else its first line. */
function parseVersion(output: string): string {
  const match = /v?(\d+\.\d+(?:\.\d+)?)/.exec(output);
  return match?.[1] ?? output.trim().split("\n")[0] ?? "unknown";
}

/** Finds `binary` and reads its version; a UserError (exit 1: cannot run here) with `installHint` when it is missing. */
async function locateTool(
  binary: string,
  versionArgs: string[],
  installHint: string,
): Promise<{ path: string; version: string }> {
  const found = await findExecutable(binary);
  if (!found) throw new UserError(`${binary} not found on PATH, in .tools/bin or in sbin: ${installHint}`, 1);
  const { output } = await runCommand(found, versionArgs, { timeoutMs: 10_000 });
  return { path: found, version: parseVersion(output) };
}

/**
 * An adapter's `locate()`: `locateTool` on the first call, its answer (or error) kept for every
 * later one.
 */
export function locateOnce(
  binary: string,
  versionArgs: string[],
  installHint: string,
): () => Promise<{ path: string; version: string }> {
  let located: Promise<{ path: string; version: string }> | undefined;
  return () => (located ??= locateTool(binary, versionArgs, installHint));
}
