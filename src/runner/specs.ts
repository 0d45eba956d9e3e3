import path from "node:path";
import type { LoadedProxy } from "../manifests/load.js";
import type { ScenarioManifest } from "../manifests/schema.js";
import type { Protocol, Settings } from "../results/schema.js";
import { renderArgs, renderEnv, renderTemplate, type TemplateVars } from "../manifests/template.js";
import type { ProcessSpec } from "./runtime.js";
import type { TlsFiles } from "./tls.js";
import { withoutUndefined } from "../util/objects.js";

/**
 * Pure builders of what the runner starts: the rendered config files and the ProcessSpec of a
 * proxy (native or docker) and of the upstream. Nothing here touches the disk or a process.
 */

export interface ProxyContext {
  listenHost: string;
  listenPort: number;
  upstreamHost: string;
  upstreamPort: number;
  /** The upstream's PingPong gRPC server (h2c), on upstreamHost. */
  upstreamGrpcPort: number;
  /** Its PingPong gRPC server over TLS and the run's certificates, in a run with TLS. */
  upstreamGrpcsPort?: number;
  tls?: TlsFiles;
  /** Cores the proxy is pinned to. */
  cpus: number[];
  /** Private writable folder of this proxy instance (rendered configs, pid, temp files). */
  workdir: string;
  logFile: string;
  /** Where the proxy's sidecar listens, when it has one. */
  sidecarPort?: number;
}

export interface RenderedConfig {
  /** Absolute host path the config is written to (inside the workdir). */
  output: string;
  content: string;
  /** Where the container sees it (docker only). */
  mount?: string;
}

export function templateVars(proxy: LoadedProxy, ctx: ProxyContext): TemplateVars {
  return {
    listenHost: ctx.listenHost,
    listenPort: String(ctx.listenPort),
    upstreamHost: ctx.upstreamHost,
    upstreamPort: String(ctx.upstreamPort),
    upstreamGrpcPort: String(ctx.upstreamGrpcPort),
    cores: String(Math.max(1, ctx.cpus.length)),
    cpuList: ctx.cpus.join(","),
    workdir: ctx.workdir,
    dir: proxy.dir,
    sidecarPort: ctx.sidecarPort === undefined ? "" : String(ctx.sidecarPort),
    upstreamGrpcsPort: ctx.upstreamGrpcsPort === undefined ? "" : String(ctx.upstreamGrpcsPort),
    tlsCert: ctx.tls?.cert ?? "",
    tlsKey: ctx.tls?.key ?? "",
    tlsCertKey: ctx.tls?.certKey ?? "",
    tlsCa: ctx.tls?.ca ?? "",
  };
}

/**
 * The config templates of a section for a protocol: the section's own, each replaced by the
 * protocol's config of the same output (`protocols.<protocol>.configs`), its mount kept.
 */
export function sectionConfigs(
  proxy: LoadedProxy,
  section: "native" | "image",
  protocol: Protocol = "http1",
): Array<{ template: string; output: string; mount?: string }> {
  const overrides = proxy.manifest.protocols[protocol]?.configs ?? [];
  return (proxy.manifest[section]?.configs ?? []).map((c) => {
    const override = overrides.find((o) => o.output === c.output);
    return override ? { ...c, template: override.template } : c;
  });
}

/**
 * Renders a section's config templates for a protocol. `templates` maps each template name (as
 * written in the manifest) to its text; the caller reads the files.
 */
export function renderConfigs(
  proxy: LoadedProxy,
  section: "native" | "image",
  ctx: ProxyContext,
  templates: Record<string, string>,
  protocol: Protocol = "http1",
): RenderedConfig[] {
  const vars = templateVars(proxy, ctx);
  const configs = sectionConfigs(proxy, section, protocol);
  return configs.map((c) => {
    const text = templates[c.template];
    if (text === undefined) throw new Error(`template ${c.template} was not read`);
    const output = path.resolve(ctx.workdir, c.output);
    if (!output.startsWith(ctx.workdir + path.sep)) {
      throw new Error(`${proxy.file}: config output ${c.output} leaves the workdir`);
    }
    return {
      output,
      content: renderTemplate(text, vars, path.join(proxy.dir, c.template)),
      ...(c.mount === undefined ? {} : { mount: c.mount }),
    };
  });
}

/**
 * A proxy's process from one section of its manifest (`native`: `command` is its binary;
 * `image`: the image, see buildDockerProxySpec): the section's args and env rendered, pinned to
 * its cores. Its private folder is the working folder (a container has it mounted at the same
 * path): pid and temp files go there.
 */
export function buildProxySpec(
  proxy: LoadedProxy,
  ctx: ProxyContext,
  command: string,
  key: "native" | "image",
): ProcessSpec {
  const { workdir: cwd, cpus, logFile } = ctx;
  const name = `proxy:${proxy.manifest.name}`;
  return sectionProcess(proxy, ctx, key, { name, command, cwd, cpus, logFile });
}

/**
 * The process of a section of the proxy's manifest: its args and env rendered (errors name
 * `<file>: <key>.args[i]`), with the proxy's memory cap.
 */
function sectionProcess(
  proxy: LoadedProxy,
  ctx: ProxyContext,
  key: "native" | "image" | "sidecar",
  { name, command, ...where }: Pick<ProcessSpec, "name" | "command" | "cwd" | "cpus" | "logFile">,
): ProcessSpec {
  const section = requiredSection(proxy, key);
  const vars = templateVars(proxy, ctx);
  return {
    name,
    command,
    args: renderArgs(section.args, vars, `${proxy.file}: ${key}.args`),
    env: renderEnv(section.env, vars, `${proxy.file}: ${key}.env`),
    ...where,
    ...withoutUndefined({ memoryBytes: proxy.manifest.memoryLimitBytes }),
  };
}

/**
 * The sidecar of a proxy (its coprocessor): `command` (its binary, or its image in a container)
 * with args and env rendered like the proxy's (`{{sidecarPort}}` where it must listen: on the
 * host network, no two collide), pinned to its own cores, with the proxy's memory cap.
 * Natively it runs in the proxy's private folder; a container in its image's own, where its
 * files are.
 */
export function buildSidecarSpec(
  proxy: LoadedProxy,
  ctx: ProxyContext,
  command: string,
  logFile: string,
  inContainer = false,
): ProcessSpec {
  const { name, cpus } = requiredSection(proxy, "sidecar");
  const cwd = inContainer ? {} : { cwd: ctx.workdir };
  return sectionProcess(proxy, ctx, "sidecar", { name: `sidecar:${name}`, command, ...cwd, cpus, logFile });
}

/** A section of the proxy's manifest that the caller needs: a programming error when absent. */
export function requiredSection<K extends "native" | "image" | "sidecar">(
  proxy: LoadedProxy,
  key: K,
): NonNullable<LoadedProxy["manifest"][K]> {
  const section = proxy.manifest[key];
  if (!section) throw new Error(`${proxy.file}: no '${key}' section`);
  return section;
}

const DEFAULT_IMAGE_TAG = "local";
const IMAGE_TAG_ENV = "PROXYBENCH_IMAGE_TAG";

/** `proxybench/<proxy>:<tag>`; the tag comes from `--image-tag`, else $PROXYBENCH_IMAGE_TAG, else `local`. */
export function imageRef(proxy: string, tag?: string, env: NodeJS.ProcessEnv = process.env): string {
  return `proxybench/${proxy}:${tag ?? env[IMAGE_TAG_ENV] ?? DEFAULT_IMAGE_TAG}`;
}

/**
 * The image tag of a cell's proxy: its variant's own (`--variant NAME:TAG=DIR`), else the run's
 * `--image-tag`; undefined leaves the choice to imageRef.
 */
export function proxyImageTag(
  settings: Pick<Settings, "imageTag" | "variants">,
  variant: string | undefined,
): string | undefined {
  const own =
    variant === undefined ? undefined : settings.variants?.find((v) => v.name === variant)?.imageTag;
  return own ?? settings.imageTag;
}

/**
 * The container of a proxy: `command` is the image, args and env rendered like the native ones,
 * the configs rendered on the host and mounted where the manifest says.
 */
export function buildDockerProxySpec(
  proxy: LoadedProxy,
  ctx: ProxyContext,
  configs: RenderedConfig[],
  image: string,
): ProcessSpec {
  return {
    ...buildProxySpec(proxy, ctx, image, "image"),
    files: configs.map((c) => c.output),
    mounts: configs.flatMap((c) => (c.mount === undefined ? [] : [{ host: c.output, container: c.mount }])),
  };
}

/**
 * The built-in upstream with the scenario's latency and rate limit, on its cores, ports chosen by
 * the OS: HTTP, and the PingPong gRPC server (h2c); in a run with TLS both over TLS too.
 */
export function buildUpstreamSpec(
  binaryPath: string,
  scenario: ScenarioManifest,
  cpus: number[],
  logFile: string,
  tls?: Pick<TlsFiles, "cert" | "key">,
): ProcessSpec {
  const args = ["--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0"];
  if (tls) {
    args.push("--grpcs-listen", "127.0.0.1:0", "--https-listen", "127.0.0.1:0");
    args.push("--tls-cert", tls.cert, "--tls-key", tls.key);
  }
  if (scenario.upstream.latencyMs > 0) args.push("--latency", `${scenario.upstream.latencyMs}ms`);
  if (scenario.upstream.maxRps > 0) args.push("--max-rps", String(scenario.upstream.maxRps));
  return { name: "upstream", command: binaryPath, args, cpus, logFile };
}
