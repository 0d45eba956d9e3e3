import type { Environment } from "../results/schema.js";

/** Pure parsers of what the environment capture reads. */

/** PRETTY_NAME (else NAME VERSION) of /etc/os-release. */
export function parseOsRelease(text: string): string | undefined {
  const fields = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m?.[1] && m[2] !== undefined) fields.set(m[1], m[2].replace(/^"(.*)"$/, "$1"));
  }
  return (
    fields.get("PRETTY_NAME") ??
    ([fields.get("NAME"), fields.get("VERSION")].filter(Boolean).join(" ") || undefined)
  );
}

/** "model name" of /proc/cpuinfo (x86), else "Model"/"CPU part" lines (arm). */
export function parseCpuModel(cpuinfo: string): string | undefined {
  for (const key of ["model name", "Model", "Hardware"]) {
    const m = new RegExp(`^${key}\\s*:\\s*(.+)$`, "m").exec(cpuinfo);
    if (m?.[1]) return m[1].trim();
  }
  return undefined;
}

/** CI provider and run from the environment (GitHub Actions; a generic CI=true otherwise). */
export function ciFromEnv(env: NodeJS.ProcessEnv): Environment["ci"] {
  if (env.GITHUB_ACTIONS === "true") {
    const server = env.GITHUB_SERVER_URL ?? "https://github.com";
    const runId = env.GITHUB_RUN_ID;
    return {
      provider: "github-actions",
      ...(runId ? { runId } : {}),
      ...(runId && env.GITHUB_REPOSITORY
        ? { runUrl: `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${runId}` }
        : {}),
    };
  }
  if (env.CI === "true" || env.CI === "1") return { provider: "unknown" };
  return undefined;
}

/** Git facts CI knows better than the checkout (a detached merge commit, a shallow clone). */
export function gitFromEnv(env: NodeJS.ProcessEnv): Environment["git"] {
  const git: Environment["git"] = {};
  if (env.GITHUB_SHA) git.commit = env.GITHUB_SHA;
  const branch = env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME;
  if (branch) git.branch = branch;
  return git;
}

/** `git log -1 --format=%H%x00%an%x00%ae%x00%cI%x00%s` output. */
export function parseGitLog(text: string): Environment["git"] {
  const [commit, name, email, timestamp, message] = text.trim().split("\0");
  if (!commit) return {};
  return {
    commit,
    ...(message === undefined ? {} : { message }),
    ...(timestamp ? { timestamp } : {}),
    author: { ...(name ? { name } : {}), ...(email ? { email } : {}) },
  };
}

/** A version number out of a tool's `--version` output ("taskset from util-linux 2.38.1"). */
export function parseToolVersion(output: string): string | undefined {
  return /v?(\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.-]+)?)/.exec(output)?.[1];
}
