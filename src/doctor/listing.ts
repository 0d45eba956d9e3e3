import type { LoadedProxy, LoadedScenario, ManifestSet } from "../manifests/load.js";
import { describeAvailability, nativeAvailability, type NativeAvailability } from "../runner/proxy-binary.js";
import { pickDefined } from "../util/objects.js";

/**
 * `proxybench list`'s sections: what can run here. One function per section (proxies, scenarios)
 * building plain data, one renderer each; the studies' pair is src/measures/study/list.ts.
 */

type ProxyEntry = ReturnType<typeof proxyEntry>;
type ScenarioEntry = ReturnType<typeof scenarioEntry>;

/** Every proxy's binary probed at once: each probe waits on a `--version` child process. */
export async function listProxies(set: ManifestSet): Promise<ProxyEntry[]> {
  const proxies = [...set.proxies.values()].sort(byName);
  return Promise.all(proxies.map(async (p) => proxyEntry(p, await nativeAvailability(p))));
}

function proxyEntry(p: LoadedProxy, a: NativeAvailability) {
  const binaryName = p.manifest.native?.binary ?? p.manifest.name;
  return {
    name: p.manifest.name,
    description: p.manifest.description,
    kind: p.manifest.kind,
    native: describeAvailability(binaryName, a),
    nativeAvailable: a.kind === "found" || a.kind === "direct",
    ...(a.kind === "found" ? { version: a.version } : {}),
    image: p.manifest.image !== undefined,
    /** The protocols it fronts, each with its note: `grpc (grpc_pass over h2c)`. */
    protocols: Object.entries(p.manifest.protocols).map(([name, s]) =>
      s?.note ? `${name} (${s.note})` : name,
    ),
    source: p.file,
  };
}

export function listScenarios(set: ManifestSet): ScenarioEntry[] {
  return [...set.scenarios.values()].sort(byName).map(scenarioEntry);
}

function scenarioEntry(s: LoadedScenario) {
  const m = s.manifest;
  return {
    name: m.name,
    description: m.description,
    engine: m.engine,
    protocol: m.protocol,
    loads: m.loads.map((l) => ({
      label: l.label,
      model: l.model,
      ...pickDefined(l, ["vus", "rate", "durationS"]),
    })),
    requests: m.requests.map((r) => {
      const vars = Object.entries(r.vars)
        .map(([k, v]) => `${k}=${v.join("|")}`)
        .join(" ");
      return `${r.method} ${r.path}${vars ? ` (${vars})` : ""}`;
    }),
    source: s.file,
  };
}

export function renderProxies(entries: ProxyEntry[]): string {
  const lines = ["Proxies:"];
  for (const e of entries) {
    const image = e.image && e.native !== "image only" ? ", image" : "";
    lines.push(`  ${e.name.padEnd(18)} ${e.native}${image}`);
    lines.push(`  ${"".padEnd(18)} ${e.description}`);
    lines.push(`  ${"".padEnd(18)} fronts: ${e.protocols.join(", ")}`);
  }
  return lines.join("\n");
}

export function renderScenarios(entries: ScenarioEntry[]): string {
  const lines = ["Scenarios:"];
  for (const e of entries) {
    lines.push(`  ${e.name.padEnd(18)} engine ${e.engine}, ${e.protocol}; ${e.description}`);
    const loads = e.loads.map((l) => {
      const what = l.vus !== undefined ? `${l.vus} VUs` : l.rate !== undefined ? `${l.rate}/s` : "";
      const dur = l.durationS !== undefined ? ` ${l.durationS}s` : "";
      return `${l.label} (${l.model}${what ? ` ${what}` : ""}${dur})`;
    });
    lines.push(`  ${"".padEnd(18)} loads: ${loads.join(", ")}`);
    lines.push(`  ${"".padEnd(18)} requests: ${e.requests.join(", ")}`);
  }
  return lines.join("\n");
}

export function byName(a: { manifest: { name: string } }, b: { manifest: { name: string } }): number {
  return a.manifest.name.localeCompare(b.manifest.name);
}
