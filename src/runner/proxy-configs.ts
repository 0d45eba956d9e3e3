import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { LoadedProxy } from "../manifests/load.js";
import type { Protocol } from "../results/schema.js";
import { renderConfigs, sectionConfigs, type ProxyContext, type RenderedConfig } from "./specs.js";

/**
 * A proxy's config files on disk: the templates it names read from its folder, and the rendered
 * configs written into its work folder. One place for the runner (a run's cells and the
 * `max-rate` search's) and the instruction-count mode; the rendering itself is pure
 * (specs.ts).
 */

/** The text of each template a section names for a protocol, by template name. */
export async function readTemplates(
  proxy: LoadedProxy,
  section: "native" | "image",
  protocol?: Protocol,
): Promise<Record<string, string>> {
  const templates: Record<string, string> = {};
  for (const c of sectionConfigs(proxy, section, protocol)) {
    templates[c.template] = await readFile(path.join(proxy.dir, c.template), "utf8");
  }
  return templates;
}

/** Writes rendered configs (their folders made as needed). */
export async function writeConfigFiles(configs: readonly RenderedConfig[]): Promise<void> {
  for (const c of configs) {
    await mkdir(path.dirname(c.output), { recursive: true });
    await writeFile(c.output, c.content);
  }
}

/** Reads, renders and writes the configs of a section of the proxy's manifest for `ctx` (HTTP/1.1). */
export async function writeSectionConfigs(
  proxy: LoadedProxy,
  section: "native" | "image",
  ctx: ProxyContext,
): Promise<RenderedConfig[]> {
  const configs = renderConfigs(proxy, section, ctx, await readTemplates(proxy, section));
  await writeConfigFiles(configs);
  return configs;
}
