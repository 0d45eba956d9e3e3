import { spawn } from "node:child_process";
import path from "node:path";

/**
 * The few git operations publishing needs, through the real `git` CLI. A token reaches git as an
 * `http.extraheader` in GIT_CONFIG_* environment variables (git >= 2.31): the same effect as
 * `git -c`, but never on a command line that `ps` shows, never written to .git/config, never
 * printed (errors are redacted).
 */

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly result: GitResult,
  ) {
    super(message);
    this.name = "GitError";
  }
}

export interface GitOptions {
  cwd: string;
  /** Sent as an HTTP Authorization header to https remotes only. */
  token?: string;
  timeoutMs?: number;
}

/** Environment variables that give git the token as an extra header (pure). */
export function authEnv(token: string | undefined, base: NodeJS.ProcessEnv = {}): Record<string, string> {
  if (!token) return {};
  const count = Number(base.GIT_CONFIG_COUNT ?? 0) || 0;
  const basic = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  return {
    GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${count}`]: "http.extraheader",
    [`GIT_CONFIG_VALUE_${count}`]: `AUTHORIZATION: basic ${basic}`,
  };
}

/**
 * A remote as git needs it from a temporary work tree: URLs and scp-like `user@host:path` as
 * given, local paths made absolute (pure apart from the current directory).
 */
export function resolveRemote(remote: string, cwd = process.cwd()): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote) || /^[^/:]+@[^/:]+:/.test(remote)) return remote;
  return path.resolve(cwd, remote);
}

/** Whether a remote is reached over http(s), where a token applies. */
export function isHttpRemote(remote: string): boolean {
  return /^https?:\/\//i.test(remote);
}

function redact(text: string, token: string | undefined): string {
  if (!token) return text;
  const basic = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  return text.split(token).join("***").split(basic).join("***");
}

async function git(args: string[], options: GitOptions): Promise<GitResult> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
    ...authEnv(options.token, process.env),
  };
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 300_000);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run git: ${e.message}`));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({
        code: code ?? 1,
        stdout: redact(Buffer.concat(out).toString("utf8"), options.token),
        stderr: redact(Buffer.concat(err).toString("utf8"), options.token),
      });
    });
  });
}

/** Runs git and throws a GitError naming the subcommand when it fails. */
async function gitOk(args: string[], options: GitOptions): Promise<string> {
  const result = await git(args, options);
  if (result.code !== 0) {
    throw new GitError(`git ${args[0] ?? ""} failed (exit ${result.code}): ${result.stderr.trim()}`, result);
  }
  return result.stdout;
}

/** An empty work tree with `origin` pointing at the remote. */
export async function initWorkTree(dir: string, remote: string, options: GitOptions): Promise<void> {
  await gitOk(["init", "--quiet", dir], options);
  await gitOk(["remote", "add", "origin", remote], options);
}

/**
 * Moves the work tree onto the remote branch's current tip (shallow: history stays on the
 * remote), or onto a fresh orphan branch when the remote has none. Returns the tip, if any.
 */
export async function checkoutTip(branch: string, options: GitOptions): Promise<string | undefined> {
  const fetched = await git(
    [
      "fetch",
      "--quiet",
      "--no-tags",
      "--depth=1",
      "origin",
      `+refs/heads/${branch}:refs/remotes/origin/${branch}`,
    ],
    options,
  );
  if (fetched.code !== 0) {
    if (/couldn't find remote ref|could not find remote ref/i.test(fetched.stderr)) {
      // An orphan branch: unborn HEAD, empty index and work tree (an earlier attempt's commit dropped).
      await gitOk(["symbolic-ref", "HEAD", `refs/heads/${branch}`], options);
      await git(["update-ref", "-d", `refs/heads/${branch}`], options);
      await git(["rm", "-r", "-q", "--cached", "--ignore-unmatch", "."], options);
      await gitOk(["clean", "-fdxq"], options);
      return undefined;
    }
    throw new GitError(`git fetch failed (exit ${fetched.code}): ${fetched.stderr.trim()}`, fetched);
  }
  const tip = (await gitOk(["rev-parse", `refs/remotes/origin/${branch}`], options)).trim();
  await gitOk(["checkout", "--quiet", "--force", "-B", branch, tip], options);
  await gitOk(["clean", "-fdxq"], options);
  return tip;
}

/** Stages `paths` and commits; returns false when there was nothing to commit. */
export async function commitPaths(paths: string[], message: string, options: GitOptions): Promise<boolean> {
  await gitOk(["add", "--", ...paths], options);
  const status = await gitOk(["status", "--porcelain", "--", ...paths], options);
  if (status.trim() === "") return false;
  const identity = await identityEnvArgs(options);
  await gitOk([...identity, "commit", "--quiet", "--no-verify", "-m", message], options);
  return true;
}

/** Falls back to a proxybench identity when git has none configured. */
async function identityEnvArgs(options: GitOptions): Promise<string[]> {
  const email = await git(["config", "user.email"], options);
  const name = await git(["config", "user.name"], options);
  const args: string[] = [];
  if (email.code !== 0 && !process.env.GIT_AUTHOR_EMAIL) {
    args.push("-c", "user.email=proxybench@users.noreply.github.com");
  }
  if (name.code !== 0 && !process.env.GIT_AUTHOR_NAME) args.push("-c", "user.name=proxybench");
  return args;
}

export type PushOutcome = "pushed" | "rejected";

/**
 * Pushes HEAD to the branch, never forced. A push that lost a race (non-fast-forward, a ref
 * lock held by a concurrent push) is "rejected": the caller fetches and applies again. Any other
 * failure (authentication, permissions, a missing remote) throws.
 */
export async function pushHead(branch: string, options: GitOptions): Promise<PushOutcome> {
  const result = await git(["push", "--porcelain", "origin", `HEAD:refs/heads/${branch}`], options);
  if (result.code === 0) return "pushed";
  const text = `${result.stdout}\n${result.stderr}`;
  if (isRaceRejection(text)) return "rejected";
  throw new GitError(
    `git push failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`,
    result,
  );
}

/** Messages git prints when another push got there first (pure, table-tested). */
export function isRaceRejection(output: string): boolean {
  return /\[rejected\]|non-fast-forward|fetch first|stale info|cannot lock ref|failed to lock|failed to update ref|unable to update local ref|incorrect old value|is at [0-9a-f]+ but expected|reference already exists/i.test(
    output,
  );
}
