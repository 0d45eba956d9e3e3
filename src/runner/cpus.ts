import { formatCores } from "../environment/tuning.js";
import type { CpuLayout } from "../results/schema.js";
import { UserError } from "../util/errors.js";

/**
 * Which cores the load generator, the proxy and the upstream are pinned to.
 *
 * Syntax of `--cpus`: `loadgen=0,proxy=1,upstream=1`. Roles are separated by commas; a role's
 * cores are a single core (`2`), a range (`2-3`) or several joined by `+` (`0+2`, `0-1+4`).
 * Every role must be given; a core may serve several roles.
 */

const ROLES = ["loadgen", "proxy", "upstream"] as const;
type Role = (typeof ROLES)[number];

const FLAG = "--cpus";

/** Parses `--cpus`; `coreCount` is the number of cores of the machine (cores 0..n-1). */
export function parseCpuLayout(text: string, coreCount: number): CpuLayout {
  const layout: Partial<Record<Role, number[]>> = {};
  for (const part of text.split(",").map((p) => p.trim())) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq < 0) throw usage(`'${part}' is not role=cores (e.g. loadgen=0,proxy=1,upstream=1)`);
    const role = part.slice(0, eq).trim();
    if (!(ROLES as readonly string[]).includes(role)) {
      throw usage(`unknown role '${role}' (roles: ${ROLES.join(", ")})`);
    }
    if (layout[role as Role]) throw usage(`role '${role}' is given twice`);
    layout[role as Role] = parseCoreList(part.slice(eq + 1).trim(), role, coreCount);
  }
  const missing = ROLES.filter((r) => !layout[r]);
  if (missing.length > 0) throw usage(`missing ${missing.join(", ")} (e.g. loadgen=0,proxy=1,upstream=1)`);
  return { loadgen: layout.loadgen ?? [], proxy: layout.proxy ?? [], upstream: layout.upstream ?? [] };
}

function parseCoreList(text: string, role: string, coreCount: number): number[] {
  if (text === "") throw usage(`${role}: no cores given`);
  const cores = new Set<number>();
  for (const item of text.split("+").map((s) => s.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(item);
    if (!m) throw usage(`${role}: '${item}' is not a core, a range (2-3) or a list (0+2)`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw usage(`${role}: range '${item}' goes backwards`);
    for (let c = from; c <= to; c++) {
      if (c >= coreCount) {
        throw usage(`${role}: core ${c} does not exist (this machine has cores 0-${coreCount - 1})`);
      }
      cores.add(c);
    }
  }
  return [...cores].sort((a, b) => a - b);
}

/**
 * The default layout for a machine with `coreCount` cores: 1 core: everything on core 0 (with a
 * warning); 2: loadgen=0, proxy=1, upstream=1; 3 and more: the load generator gets the first
 * half, the proxy half of the rest (rounded up), the upstream what remains (3: one core each).
 */
export function defaultCpuLayout(coreCount: number): { layout: CpuLayout; warnings: string[] } {
  if (coreCount < 1) throw new Error(`invalid core count ${coreCount}`);
  if (coreCount === 1) {
    return {
      layout: { loadgen: [0], proxy: [0], upstream: [0] },
      warnings: [
        "only 1 core: the load generator, the proxy and the upstream share it; figures measure the machine more than the proxy",
      ],
    };
  }
  if (coreCount === 2) return { layout: { loadgen: [0], proxy: [1], upstream: [1] }, warnings: [] };
  const half = Math.floor(coreCount / 2);
  const proxyCount = Math.ceil((coreCount - half) / 2);
  return {
    layout: {
      loadgen: range(0, half),
      proxy: range(half, half + proxyCount),
      upstream: range(half + proxyCount, coreCount),
    },
    warnings: [],
  };
}

/** `loadgen=0-1,proxy=2,upstream=3`: the same syntax `--cpus` accepts. */
export function formatCpuLayout(layout: CpuLayout): string {
  return ROLES.map((r) => `${r}=${formatCores(layout[r])}`).join(",");
}

/** The cores of a layout, each once, in order (pure). */
export function layoutCores(layout: CpuLayout): number[] {
  return [...new Set(ROLES.flatMap((r) => layout[r]))].sort((a, b) => a - b);
}

/** Warnings about a layout that is valid but measures badly. */
export function layoutWarnings(layout: CpuLayout): string[] {
  const shared = layout.loadgen.filter((c) => layout.proxy.includes(c));
  return shared.length > 0
    ? [`the load generator and the proxy share core ${formatCores(shared)}: they compete for it`]
    : [];
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

function usage(message: string): UserError {
  return new UserError(`${FLAG}: ${message}`);
}
