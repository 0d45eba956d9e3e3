import { UserError } from "../util/errors.js";

/** The placeholders a proxy manifest may use (see the header of schema.ts). */
const PLACEHOLDERS = [
  "listenHost",
  "listenPort",
  "upstreamHost",
  "upstreamPort",
  "upstreamGrpcPort",
  "cores",
  "cpuList",
  "workdir",
  "dir",
  "sidecarPort",
  "upstreamGrpcsPort",
  "tlsCert",
  "tlsKey",
  "tlsCertKey",
  "tlsCa",
] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];
export type TemplateVars = Record<Placeholder, string>;

const PATTERN = /\{\{\s*([A-Za-z0-9_.-]*)\s*\}\}/g;

/** Names of the placeholders a text uses that are not known placeholders. */
export function unknownPlaceholders(text: string): string[] {
  const unknown = new Set<string>();
  for (const match of text.matchAll(PATTERN)) {
    const key = match[1] ?? "";
    if (!(PLACEHOLDERS as readonly string[]).includes(key)) unknown.add(key);
  }
  return [...unknown];
}

/**
 * Replaces every `{{placeholder}}` in `text`. An unknown placeholder is an error naming `source`
 * (the template file, or `file: field` for a manifest string) and the placeholder.
 */
export function renderTemplate(text: string, vars: TemplateVars, source: string): string {
  const unknown = unknownPlaceholders(text);
  if (unknown.length > 0) {
    throw new UserError(
      `${source}: unknown placeholder ${unknown.map((u) => `{{${u}}}`).join(", ")} ` +
        `(known: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(" ")})`,
    );
  }
  return text.replace(PATTERN, (_all, key: string) => vars[key as Placeholder]);
}

/** Each of a manifest's args rendered; an error names `source[i]` (e.g. `file: native.args[2]`). */
export function renderArgs(args: string[], vars: TemplateVars, source: string): string[] {
  return args.map((a, i) => renderTemplate(a, vars, `${source}[${i}]`));
}

/** Each value of a manifest's env rendered; an error names `source.NAME` (e.g. `file: native.env.X`). */
export function renderEnv(
  env: Record<string, string>,
  vars: TemplateVars,
  source: string,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, renderTemplate(v, vars, `${source}.${k}`)]),
  );
}
