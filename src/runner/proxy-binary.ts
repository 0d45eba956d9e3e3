import type { LoadedProxy } from "../manifests/load.js";
import { findExecutable } from "../util/paths.js";
import { execOutput } from "../environment/exec.js";

export type NativeAvailability =
  | { kind: "direct" }
  | { kind: "image-only" }
  | { kind: "found"; path: string; version: string }
  | { kind: "missing"; binary: string; fix: string };

/** Whether a proxy can run natively here, and which version. */
export async function nativeAvailability(proxy: LoadedProxy): Promise<NativeAvailability> {
  const m = proxy.manifest;
  if (m.kind === "direct") return { kind: "direct" };
  if (!m.native) return { kind: "image-only" };
  const found = await findExecutable(m.native.binary);
  if (!found) return { kind: "missing", binary: m.native.binary, fix: installHint(proxy) };
  const output = await versionOutput(found, m.native.version.args);
  return { kind: "found", path: found, version: parseVersion(output, m.native.version.pattern) ?? "unknown" };
}

/**
 * How to get a missing proxy binary: its Debian package, else the manifest's own install command
 * (as written: scripts/setup.sh asks for sudo itself), else where proxybench looks for it.
 */
export function installHint(proxy: Pick<LoadedProxy, "manifest" | "file">): string {
  const native = proxy.manifest.native;
  if (!native) return "";
  if (native.package) return `sudo apt-get install ${native.package}`;
  return (
    native.install ??
    `put an executable '${native.binary}' on PATH or in .tools/bin (${proxy.file} names no native.package or native.install to install it)`
  );
}

/** A binary's version output, asked once per process (`list` and `doctor` ask per proxy and per
 * study; Hive Gateway takes a second to answer). */
const versionOutputs = new Map<string, Promise<string>>();
function versionOutput(binary: string, args: readonly string[]): Promise<string> {
  const key = [binary, ...args].join("\0");
  const output =
    versionOutputs.get(key) ?? execOutput(binary, [...args], { timeoutMs: 10_000 }).then((r) => r.output);
  versionOutputs.set(key, output);
  return output;
}

/** The first capture group of `pattern` in `output`. Pure. */
export function parseVersion(output: string, pattern: string): string | undefined {
  return new RegExp(pattern).exec(output)?.[1];
}

/** One line for `list`: "native: nginx 1.22.1", "image only"... */
export function describeAvailability(name: string, a: NativeAvailability): string {
  switch (a.kind) {
    case "direct":
      return "native: no proxy (baseline)";
    case "image-only":
      return "image only";
    case "found":
      return `native: ${name} ${a.version}`;
    case "missing":
      return `native: binary not found (${a.fix})`;
  }
}
