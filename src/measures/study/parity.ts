import { markdownTable } from "markdown-table";
import { escapeMarkdown } from "../../render/escape.js";
import { heading } from "../../render/markdown.js";
import type { Cell, Results } from "../../results/schema.js";

/**
 * Config parity (pure): the tuning each proxy ran with (`cell.tuning`, from its manifest), side
 * by side, and warnings where they differ in ways that skew a comparison: worker counts that do
 * not match the cores a proxy was given, upstream keep-alive on for one and off for another, an
 * access log on for one, a connection limit below the load's concurrency.
 */

type TuningValue = Cell["tuning"][string];

/** A proxy and the tuning it ran with. */
export type ProxyTuning = Pick<Cell, "proxy" | "tuning">;

export interface ParityContext {
  /** Cores each proxy was pinned to (the worker count `cores` stands for). */
  proxyCores: number;
  /** Highest concurrency of the loads (VUs or connections), when known. */
  concurrency?: number;
}

/** Keys every proxy should record; one that does not is reported. */
const PARITY_KEYS = ["workers", "upstreamKeepalive", "accessLog"] as const;

const OFF = new Set(["false", "0", "off", "no", "none", "never", "disabled"]);

/** Whether a keep-alive or access-log setting is on ("always", 256, true...). */
export function isOn(value: TuningValue | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return !OFF.has(String(value).trim().toLowerCase());
}

/** The worker count a value stands for: `cores` is the proxy's core count; `auto` is unknown. */
export function workerCount(value: TuningValue | undefined, cores: number): number | "auto" | undefined {
  if (value === undefined) return undefined;
  if (value === "cores") return cores;
  if (typeof value === "number") return value;
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : "auto";
}

export function parityWarnings(proxies: ProxyTuning[], ctx: ParityContext): string[] {
  const warnings: string[] = [];
  if (proxies.length === 0) return warnings;
  for (const key of PARITY_KEYS) {
    const missing = proxies.filter((p) => p.tuning[key] === undefined).map((p) => p.proxy);
    if (missing.length > 0 && missing.length < proxies.length) {
      warnings.push(
        `${missing.join(", ")} ${missing.length === 1 ? "does" : "do"} not record ${key}: parity unknown`,
      );
    }
  }
  // Workers: one per pinned core, the same for every proxy.
  for (const p of proxies) {
    const n = workerCount(p.tuning.workers, ctx.proxyCores);
    if (n === "auto") {
      warnings.push(
        `${p.proxy} sizes its workers itself (${String(p.tuning.workers)}): it may use more threads than its ${ctx.proxyCores} core(s)`,
      );
    } else if (n !== undefined && n !== ctx.proxyCores) {
      warnings.push(`${p.proxy} runs ${n} worker(s) on ${ctx.proxyCores} pinned core(s)`);
    }
  }
  // Upstream keep-alive: a proxy that opens a connection per request pays a handshake others do not.
  const on = proxies.filter((p) => isOn(p.tuning.upstreamKeepalive) === true).map((p) => p.proxy);
  const off = proxies.filter((p) => isOn(p.tuning.upstreamKeepalive) === false).map((p) => p.proxy);
  if (on.length > 0 && off.length > 0) {
    warnings.push(`upstream keep-alive is on for ${on.join(", ")} and off for ${off.join(", ")}`);
  }
  // Access log: a write per request.
  const logging = proxies.filter((p) => isOn(p.tuning.accessLog) === true).map((p) => p.proxy);
  if (logging.length > 0 && logging.length < proxies.length) {
    warnings.push(
      `the access log is on for ${logging.join(", ")} only: a write per request the others do not make`,
    );
  } else if (logging.length > 0) {
    warnings.push(`the access log is on for every proxy: it measures logging as much as proxying`);
  }
  // Connection limits below the load's concurrency queue or refuse connections.
  const { concurrency } = ctx;
  if (concurrency === undefined) return warnings;
  for (const p of proxies) {
    for (const [key, value] of Object.entries(p.tuning)) {
      if (!/conn/i.test(key) || typeof value !== "number") continue;
      if (value < concurrency)
        warnings.push(
          `${p.proxy} ${key} is ${value}, below the ${concurrency} concurrent connections of the load`,
        );
    }
  }
  return warnings;
}

/** The tuning of each proxy that ran (the first cell of each; `direct` and empty tunings left out). */
export function proxyTunings(results: Results): ProxyTuning[] {
  const out: ProxyTuning[] = [];
  for (const cell of results.cells) {
    if (out.some((p) => p.proxy === cell.proxy) || Object.keys(cell.tuning).length === 0) continue;
    out.push({ proxy: cell.proxy, tuning: cell.tuning });
  }
  const order = results.settings.proxies;
  return out.sort((a, b) => order.indexOf(a.proxy) - order.indexOf(b.proxy));
}

export function parityContext(results: Results): ParityContext {
  const proxyCores = results.settings.cpus.proxy.length || results.environment.cores;
  const concurrencies = results.cells.map((c) => c.load.connections ?? c.load.vus ?? 0).filter((n) => n > 0);
  return {
    proxyCores,
    ...(concurrencies.length > 0 ? { concurrency: Math.max(...concurrencies) } : {}),
  };
}

/** The parity table and its warnings; undefined when no proxy recorded any tuning. */
export function renderParitySection(results: Results, level: number): string | undefined {
  const proxies = proxyTunings(results);
  if (proxies.length === 0) return undefined;
  const ctx = parityContext(results);
  const recorded = PARITY_KEYS.filter((key) => proxies.some((p) => p.tuning[key] !== undefined));
  const keys = [...new Set([...recorded, ...proxies.flatMap((p) => Object.keys(p.tuning))])];
  const header = ["setting", ...proxies.map((p) => escapeMarkdown(p.proxy))];
  const rows = keys.map((key) => [
    escapeMarkdown(key),
    ...proxies.map((p) => (p.tuning[key] === undefined ? "—" : escapeMarkdown(String(p.tuning[key])))),
  ]);
  const parts = [
    heading(level, "Config parity"),
    `Each proxy's tuning as it ran (\`workers: cores\` = one per pinned core; ${ctx.proxyCores} here).`,
    markdownTable([header, ...rows], { align: ["l", ...proxies.map(() => "l" as const)] }),
  ];
  const warnings = parityWarnings(proxies, ctx);
  parts.push(
    warnings.length === 0
      ? "No difference that skews the comparison."
      : [
          "Differences that skew the comparison:",
          "",
          ...warnings.map((w) => `- ⚠️ ${escapeMarkdown(w)}`),
        ].join("\n"),
  );
  return parts.join("\n\n");
}
