import { execFile } from "node:child_process";

/**
 * Runs a short command (a `--version`, a `git log`) to completion and returns its exit code and
 * stdout + stderr. Output is complete: it resolves once the streams are closed, not at exit.
 */
export function execOutput(
  command: string,
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 10_000,
        maxBuffer: 4 * 1024 * 1024,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}
