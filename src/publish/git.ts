import { execFile, type ExecFileException } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

/**
 * The few git operations publishing needs, through the real `git` CLI. A token reaches git as an
 * `http.extraheader` in GIT_CONFIG_* environment variables (git >= 2.31): the same effect as
 * `git -c`, but never on a command line that `ps` shows, never written to .git/config, never
 * printed (errors are redacted).
 */

/** A git command that failed: its subcommand, exit code and (redacted) message. */
export class GitError extends Error {
  override name = "GitError";
}

export interface GitOptions {
  cwd: string;
  /** Sent as an HTTP Authorization header to https remotes only. */
  token?: string;
}

/** What a git command may take before it is killed. */
const GIT_TIMEOUT_MS = 300_000;

/** The token as HTTP basic credentials, base64. */
const basicCredentials = (token: string) => Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");

/** Environment variables that give git the token as an extra header (pure). */
export function authEnv(token: string | undefined, base: NodeJS.ProcessEnv = {}): Record<string, string> {
  if (!token) return {};
  const count = Number(base.GIT_CONFIG_COUNT ?? 0) || 0;
  return {
    GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${count}`]: "http.extraheader",
    [`GIT_CONFIG_VALUE_${count}`]: `AUTHORIZATION: basic ${basicCredentials(token)}`,
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
  return text.split(token).join("***").split(basicCredentials(token)).join("***");
}

const execGit = promisify(execFile);

/** Runs git to its end (stdin closed, killed after the timeout); a failed exit is a result, not an error. */
async function git(args: string[], options: GitOptions) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
    ...authEnv(options.token, process.env),
  };
  const run = execGit("git", args, {
    cwd: options.cwd,
    env,
    timeout: GIT_TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer: Infinity,
  });
  run.child.stdin?.end();
  const { code, stdout, stderr } = await run.then(
    (output) => ({ code: 0, ...output }),
    (err: ExecFileException & { stdout?: string; stderr?: string }) => {
      if (typeof err.code === "string") throw new Error(`cannot run git: ${err.message}`);
      return { code: err.code ?? 1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
    },
  );
  return { code, stdout: redact(stdout, options.token), stderr: redact(stderr, options.token) };
}

/** A command's output; a GitError naming the subcommand, its exit code and `said` when it failed. */
function okOutput(
  args: string[],
  result: Awaited<ReturnType<typeof git>>,
  said = result.stderr.trim(),
): string {
  if (result.code !== 0) throw new GitError(`git ${args[0] ?? ""} failed (exit ${result.code}): ${said}`);
  return result.stdout;
}

/** Runs git and throws a GitError naming the subcommand when it fails. */
async function gitOk(args: string[], options: GitOptions): Promise<string> {
  return okOutput(args, await git(args, options));
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
  const refspec = `+refs/heads/${branch}:refs/remotes/origin/${branch}`;
  const fetch = ["fetch", "--quiet", "--no-tags", "--depth=1", "origin", refspec];
  const fetched = await git(fetch, options);
  if (fetched.code !== 0 && /couldn't find remote ref|could not find remote ref/i.test(fetched.stderr)) {
    // An orphan branch: unborn HEAD, empty index and work tree (an earlier attempt's commit dropped).
    await gitOk(["symbolic-ref", "HEAD", `refs/heads/${branch}`], options);
    await git(["update-ref", "-d", `refs/heads/${branch}`], options);
    await git(["rm", "-r", "-q", "--cached", "--ignore-unmatch", "."], options);
    await gitOk(["clean", "-fdxq"], options);
    return undefined;
  }
  okOutput(fetch, fetched);
  const tip = (await gitOk(["rev-parse", `refs/remotes/origin/${branch}`], options)).trim();
  await gitOk(["checkout", "--quiet", "--force", "-B", branch, tip], options);
  await gitOk(["clean", "-fdxq"], options);
  return tip;
}

/** Stages `paths` and commits them, if they changed. */
export async function commitPaths(paths: string[], message: string, options: GitOptions): Promise<void> {
  await gitOk(["add", "--", ...paths], options);
  const status = await gitOk(["status", "--porcelain", "--", ...paths], options);
  if (status.trim() === "") return;
  const identity = await identityEnvArgs(options);
  await gitOk([...identity, "commit", "--quiet", "--no-verify", "-m", message], options);
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
  const push = ["push", "--porcelain", "origin", `HEAD:refs/heads/${branch}`];
  const result = await git(push, options);
  if (result.code !== 0 && isRaceRejection(`${result.stdout}\n${result.stderr}`)) return "rejected";
  okOutput(push, result, result.stderr.trim() || result.stdout.trim());
  return "pushed";
}

/** Messages git prints when another push got there first (pure, table-tested). */
export function isRaceRejection(output: string): boolean {
  return /\[rejected\]|non-fast-forward|fetch first|stale info|cannot lock ref|failed to lock|failed to update ref|unable to update local ref|incorrect old value|is at [0-9a-f]+ but expected|reference already exists/i.test(
    output,
  );
}
