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

/**
 * Runs a command with `input` on its stdin and returns its exit code, stdout and stderr apart
 * (a script that answers in JSON on stdout and explains on stderr). Killed after `timeoutMs`.
 */
export function execWithInput(
  command: string,
  args: string[],
  options: { input: string; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, stdout, stderr: error && code === null ? `${stderr}${error.message}` : stderr });
      },
    );
    // A command that exits without reading its stdin closes the pipe: its exit code tells.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input);
  });
}
