import { z } from "zod";
import { Engine, Load, Protocol } from "../results/schema.js";

/**
 * Manifests: `proxies/<name>/proxy.yml` and `scenarios/<name>/scenario.yml`. Adding a proxy or
 * a scenario means adding a folder; nothing in the code names one.
 *
 * Strings in `args`, `env` and config templates may use these placeholders, rendered per cell:
 *   {{listenHost}} {{listenPort}}      where the proxy must listen
 *   {{upstreamHost}} {{upstreamPort}}  the built-in upstream
 *   {{upstreamGrpcPort}}               its PingPong gRPC server (h2c), on the same host
 *   {{cores}}                          how many cores the proxy is pinned to (its worker count)
 *   {{cpuList}}                        those cores, comma separated
 *   {{workdir}}                        a private, writable directory for this proxy instance
 *   {{dir}}                            the manifest's own folder
 *   {{sidecarPort}}                    where the proxy's sidecar listens (empty without one)
 *   {{upstreamGrpcsPort}}              the upstream's PingPong gRPC server over TLS (a run with TLS)
 *   {{tlsCert}} {{tlsKey}}             the run's server certificate and key (PEM files; a run with TLS)
 *   {{tlsCertKey}}                     both in one file (HAProxy's crt)
 *   {{tlsCa}}                          the run's CA certificate, to verify the upstream's
 */

const name = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and '-', starting with a letter or digit");

/**
 * What a proxy's `tuning:` may record, each in the cells of a run and side by side in a study's
 * parity table (src/measures/study/parity.ts reads the first three and the connection limits); the
 * extensibility study records the last three itself. A key outside the list is a typo until it is
 * added here.
 */
const TUNING_KEYS = [
  "workers",
  "upstreamKeepalive",
  "accessLog",
  "maxConnections",
  "workerConnections",
  "upstreamHttpVersion",
  "cpuAffinity",
  "proxyBuffering",
  "gc",
  "runtime",
  "extension",
  "memoryLimit",
  "coprocessorCores",
] as const;

const Tuning = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .superRefine((tuning, ctx) => {
    for (const key of Object.keys(tuning)) {
      if ((TUNING_KEYS as readonly string[]).includes(key)) continue;
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `unknown tuning key '${key}' (known: ${TUNING_KEYS.join(", ")})`,
      });
    }
  });

/** A process's arguments and environment: none unless given. */
const processArgs = {
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
};

const ConfigRef = z.object({ template: z.string(), output: z.string() }).strict();

/** How a proxy does one test of the extensibility study with one kind of extension point, or why it cannot. */
const ExtensionPoint = z.union([
  z
    .object({
      configs: z.array(ConfigRef).min(1),
      /** An environment variable the proxy needs for it (a licence), and why; unset: skipped with the reason. */
      requiresEnv: z
        .object({ name: z.string().regex(/^[A-Z_][A-Z0-9_]*$/), reason: z.string().min(1) })
        .strict()
        .optional(),
    })
    .strict(),
  z.object({ unsupported: z.string().min(1) }).strict(),
]);

/** One kind of extension point (config, script, coprocessor) and how each test is done with it. */
const ExtensionKind = z
  .object({
    description: z.string().min(1),
    /** A file this kind needs beyond the proxy (a dynamic module) and the Debian package that installs it. */
    requires: z
      .object({ file: z.string().startsWith("/"), package: z.string().min(1) })
      .strict()
      .optional(),
    /** Configs added for every test of this kind (a module loaded, a script imported). */
    configs: z.array(ConfigRef).default([]),
    /** Arguments appended to the native command and environment added (a second config file). */
    ...processArgs,
    /** By test (the study's scenario names); a test not listed is not possible with this kind. */
    tests: z.record(name, ExtensionPoint),
  })
  .strict();

export const EXTENSION_KINDS = ["config", "script", "coprocessor"] as const;
export type ExtensionKindName = (typeof EXTENSION_KINDS)[number];

/**
 * A process the proxy needs beside it (the extensibility study's coprocessor), started before
 * the proxy on its own cores and watched during the run: if it dies, the cell is invalid. It
 * runs natively from `binary`, or under `--runtime docker` from `image` (a full reference; its
 * `args` and `env` are then the container's).
 */
const Sidecar = z
  .object({
    name,
    binary: z.string().min(1).optional(),
    image: z.string().min(1).optional(),
    ...processArgs,
    /** Cores it is pinned to; empty: not pinned. */
    cpus: z.array(z.number().int().nonnegative()).default([]),
    /** Answers 2xx on GET of this path once it is up. */
    ready: z.string().startsWith("/").default("/health"),
  })
  .strict()
  .refine((s) => s.binary !== undefined || s.image !== undefined, {
    message: "a sidecar needs a 'binary' or an 'image'",
    path: ["binary"],
  });

/**
 * How a proxy fronts one protocol: config templates that replace the section's config of the
 * same `output` (nginx renders a `grpc_pass` server instead of its `proxy_pass` one), in both
 * the native and the image section. Empty: the proxy's usual configs serve it.
 */
const ProtocolSupport = z
  .object({
    configs: z.array(ConfigRef).default([]),
    /** What the proxy does for this protocol, shown by `list`. */
    note: z.string().min(1).optional(),
  })
  .strict();

/** One optional entry per protocol; a protocol a proxy does not declare is skipped for it. */
const ProtocolSupports = z
  .object(
    Object.fromEntries(Protocol.options.map((p) => [p, ProtocolSupport.optional()])) as {
      [P in Protocol]: z.ZodOptional<typeof ProtocolSupport>;
    },
  )
  .strict();

export const ProxyManifest = z
  .strictObject({
    name,
    description: z.string().min(1),
    homepage: z.url().optional(),
    /** `direct`: no process, the load goes straight to the upstream (the baseline). */
    kind: z.enum(["proxy", "direct"]).default("proxy"),
    native: z
      .strictObject({
        /** Executable looked up on PATH, then /usr/sbin, /usr/local/sbin, /sbin. */
        binary: z.string().min(1),
        ...processArgs,
        /** Templates rendered into {{workdir}} before start. */
        configs: z.array(ConfigRef).default([]),
        version: z.strictObject({
          args: z.array(z.string()),
          /** First capture group is the version; matched against stdout + stderr. */
          pattern: z.string(),
        }),
        /** Debian package that provides the binary, for `doctor`'s fix. */
        package: z.string().optional(),
        /** The command that installs the binary when no Debian package does, for `doctor`'s fix. */
        install: z.string().min(1).optional(),
      })
      .optional(),
    image: z
      .strictObject({
        dockerfile: z.string().default("Dockerfile"),
        context: z.string().default("."),
        buildArgs: z.record(z.string(), z.string()).default({}),
        ...processArgs,
        /** Rendered config files bind-mounted into the container: output path -> container path. */
        configs: z
          .array(z.strictObject({ template: z.string(), output: z.string(), mount: z.string() }))
          .default([]),
      })
      .optional(),
    /**
     * `proxybench count`: how the proxy runs as one process under Valgrind (rendered
     * with {{cores}} = 1), natively or in its image. `args` and `env` replace the section's own
     * (native or image) when given; `unsupported`
     * says why it cannot run there (a Go or .NET runtime), and the proxy is skipped with it.
     */
    instructions: z
      .strictObject({
        /**
         * The program Valgrind runs in the proxy's image under `--runtime docker` (a name on the
         * image's PATH or a path in it); default: `native.binary`.
         */
        program: z.string().min(1).optional(),
        args: z.array(z.string()).optional(),
        env: z.record(z.string(), z.string()).optional(),
        unsupported: z.string().min(1).optional(),
      })
      .optional(),
    ready: z
      .strictObject({
        /** Path requested through the proxy until it answers 2xx (the upstream serves /health). */
        path: z.string().startsWith("/").default("/health"),
        timeoutS: z.number().positive().default(20),
      })
      .default({ path: "/health", timeoutS: 20 }),
    /** Choices that keep proxies comparable; recorded in each cell and compared across proxies. */
    tuning: Tuning.default({}),
    /**
     * The protocols the proxy fronts (what the load generator speaks to it) and how; absent:
     * HTTP/1.1 only. A scenario in another protocol skips the proxy, with the reason.
     */
    protocols: ProtocolSupports.default({ http1: { configs: [] } }),
    /** The extensibility study: how this proxy does its tests per kind of extension point. */
    extensions: z.partialRecord(z.enum(EXTENSION_KINDS), ExtensionKind).optional(),
    sidecar: Sidecar.optional(),
    /** Data memory of the proxy and its sidecar, each (RLIMIT_DATA with prlimit): the study's 1 GB cap. */
    memoryLimitBytes: z.number().int().positive().optional(),
  })
  .refine((m) => m.kind === "direct" || m.native !== undefined || m.image !== undefined, {
    message: "a proxy needs a 'native' section, an 'image' section, or both",
    path: ["native"],
  });
export type ProxyManifest = z.infer<typeof ProxyManifest>;

/** The field only one load model reads, and needs. */
const MODEL_FIELD = { "constant-arrival-rate": "rate", "fixed-count": "requests" } as const;

/**
 * A load level of a scenario: no field the run would not read (a typo such as `duraionS` or
 * `rat` is an error, not a silent default), and the field its model needs.
 */
const ManifestLoad = Load.strict().superRefine((load, ctx) => {
  for (const [model, field] of Object.entries(MODEL_FIELD)) {
    if (load.model === model && load[field] === undefined) {
      ctx.addIssue({ code: "custom", path: [field], message: `model ${model} needs '${field}'` });
    }
    if (load.model !== model && load[field] !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `only model ${model} reads '${field}' (this load is ${load.model})`,
      });
    }
  }
});

export const RequestSpec = z.strictObject({
  method: z.enum(["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"]).default("GET"),
  /** May hold `{var}` placeholders, expanded with `vars` (one request per value). */
  path: z.string().startsWith("/"),
  vars: z.record(z.string(), z.array(z.string()).min(1)).default({}),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.string().optional(),
});
export type RequestSpec = z.infer<typeof RequestSpec>;

export const ScenarioManifest = z.strictObject({
  name,
  description: z.string().min(1),
  /** Engine used unless `--engine` says otherwise. */
  engine: Engine.default("k6"),
  /** What the load generator speaks to the proxy; only proxies that declare it run the scenario. */
  protocol: Protocol.default("http1"),
  /**
   * gRPC: the service's descriptor set in the scenario folder (`protoc --include_imports
   * --descriptor_set_out`), loaded by k6 before the load; absent: read from the server's
   * reflection by each VU as it connects.
   */
  protoset: z.string().min(1).optional(),
  /** k6 script in the scenario folder. */
  script: z.string().default("script.js"),
  /** One iteration sends every request in order (expanded over their vars). */
  requests: z.array(RequestSpec).min(1),
  /** What the built-in upstream returns for these requests; the probe checks it before the load. */
  upstream: z
    .strictObject({
      latencyMs: z.number().nonnegative().default(0),
      /** Serve at most this many requests per second (0: unlimited). */
      maxRps: z.number().nonnegative().default(0),
      contentType: z.string().optional(),
      /** Approximate body size; the probe accepts +-25%. */
      bodyBytes: z.number().int().positive().optional(),
    })
    .default({ latencyMs: 0, maxRps: 0 }),
  /** What a correct response is. Any other response makes the cell invalid. */
  check: z
    .strictObject({
      status: z.array(z.number().int().min(100).max(599)).min(1).default([200]),
      contentType: z.string().optional(),
      bodyEquals: z.string().optional(),
      bodyContains: z.string().optional(),
      /** Response headers that must have exactly these values (names in any case). */
      headers: z.record(z.string().min(1), z.string()).optional(),
      /** At least this many response headers whose values are distinct GUIDs. */
      distinctGuidHeaders: z.number().int().positive().optional(),
      /** The body is a JSON object with these string fields (the upstream's /echo/headers: what it saw); a name with dots is a path (`data.source`, the subgraph's answer through a GraphQL gateway). */
      bodyJson: z.record(z.string().min(1), z.string()).optional(),
      /** Requests the target must refuse, sent by the probe: these headers replace the request's, and the status must be one of these. */
      rejects: z
        .array(
          z
            .object({
              headers: z.record(z.string(), z.string()),
              status: z.array(z.number().int().min(100).max(599)).min(1),
            })
            .strict(),
        )
        .optional(),
    })
    .default({ status: [200] }),
  /** Load levels; the first is the default. */
  loads: z.array(ManifestLoad).min(1),
});
export type ScenarioManifest = z.infer<typeof ScenarioManifest>;
