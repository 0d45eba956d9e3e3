import { spawn } from "node:child_process";
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { RESULTS_DIR } from "./fixtures.js";

const exec = promisify(execFile);

export async function gitIn(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec("git", args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.org",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.org",
    },
  });
  return stdout;
}

/** A bare repository that records every value its refs take (the reflog proves no force push). */
export async function bareRepo(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "proxybench-bare-"));
  await gitIn(dir, "init", "--quiet", "--bare", "-b", "main");
  await gitIn(dir, "config", "core.logAllRefUpdates", "always");
  return dir;
}

/** The fixture results with another commit id and message. */
export async function resultsFor(sha: string, message: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "proxybench-results-"));
  await cp(RESULTS_DIR, dir, { recursive: true });
  const file = path.join(dir, "results.json");
  const data = JSON.parse(await readFile(file, "utf8")) as { environment: { git: Record<string, unknown> } };
  data.environment.git.commit = sha;
  data.environment.git.message = message;
  await writeFile(file, JSON.stringify(data));
  return dir;
}

/** Checks out a branch of a repository into a fresh folder. */
export async function checkout(repo: string, branch: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "proxybench-checkout-"));
  await gitIn(dir, "clone", "--quiet", "--branch", branch, repo, ".");
  return dir;
}

export async function refOf(repo: string, branch: string): Promise<string | undefined> {
  const out = await gitIn(repo, "for-each-ref", "--format=%(objectname)", `refs/heads/${branch}`);
  return out.trim() || undefined;
}

/** Pushes one commit holding `files` to a new branch of `repo`. */
export async function seedBranch(repo: string, branch: string, files: Record<string, string>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "proxybench-seed-"));
  await gitIn(dir, "init", "--quiet", "-b", branch);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  await gitIn(dir, "add", ".");
  await gitIn(dir, "commit", "--quiet", "-m", "seed");
  await gitIn(dir, "push", "--quiet", repo, `HEAD:refs/heads/${branch}`);
}

/** Runs the built CLI as a user types it. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/proxybench.js", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Builds dist/ (the CLI); type errors elsewhere in the tree still emit, so only the files are checked. */
