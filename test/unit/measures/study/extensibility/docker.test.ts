import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadProxyFile } from "../../../../../src/manifests/load.js";
import { ProxyManifest } from "../../../../../src/manifests/schema.js";
import type { Plan } from "../../../../../src/runner/plan.js";
import { coprocessorChoices } from "../../../../../src/measures/study/extensibility/coprocessors.js";
import { renderExtensibilityRows } from "../../../../../src/measures/study/extensibility/dry-run.js";
import { derivedManifest, planOptions } from "../../../../../src/measures/study/extensibility/options.js";
import { PROJECT_ROOT } from "../../../../../src/util/paths.js";

// The extensibility study under --runtime docker: every coprocessor runs from its image, so the
// C# coprocessor (image only) has its rows; natively it stays skipped with its reason.

const NGINX = path.join(PROJECT_ROOT, "proxies", "nginx", "proxy.yml");
const ENVOY = path.join(PROJECT_ROOT, "proxies", "envoy", "proxy.yml");
const ALL = ["go", "node", "python", "java", "csharp"];
const settings = { memoryLimitBytes: 1 << 30, sidecarCpus: [0], runtime: "docker" as const };

describe("the extensibility study's coprocessors under docker", () => {
  it("each runs from its image, proxybench/coprocessor-<name>:<tag>, listening where the runner says", async () => {
    const choices = await coprocessorChoices(ALL, { runtime: "docker", imageTag: "ci" });
    expect(choices.map((c) => c.image?.ref)).toEqual(ALL.map((n) => `proxybench/coprocessor-${n}:ci`));
    expect(choices.every((c) => c.unavailable === undefined)).toBe(true);
    const csharp = choices.find((c) => c.name === "csharp");
    expect(csharp?.image?.env).toEqual({ ASPNETCORE_URLS: "http://127.0.0.1:{{sidecarPort}}" });
    for (const c of choices.filter((c) => c.name !== "csharp"))
      expect(c.image?.args, c.name).toEqual(["--listen", "127.0.0.1:{{sidecarPort}}"]);
  });

  it("natively C# is skipped with its reason, and nothing runs from an image", async () => {
    const choices = await coprocessorChoices(["node", "csharp"], { runtime: "native" });
    expect(choices.map((c) => c.image)).toEqual([undefined, undefined]);
    expect(choices.find((c) => c.name === "csharp")?.unavailable).toBe("image only: no native start here");
    const nginx = await loadProxyFile(NGINX, true);
    const plan = planOptions(nginx, "static-header", choices, () => true);
    expect(plan.skipped).toEqual([{ option: "csharp", reason: "image only: no native start here" }]);
  });

  it("the plan has the C# row, its sidecar the image with the cap and the core", async () => {
    const choices = await coprocessorChoices(ALL, { runtime: "docker", imageTag: "ci" });
    const envoy = await loadProxyFile(ENVOY, true);
    const plan = planOptions(envoy, "client-awareness", choices, () => true);
    expect(plan.options.map((o) => o.name)).toEqual(["config", "script", ...ALL]);
    expect(plan.skipped).toEqual([]);
    const option = plan.options.find((o) => o.name === "csharp");
    const m = derivedManifest(envoy.manifest, option, settings);
    expect(ProxyManifest.safeParse(m).success).toBe(true);
    expect(m.sidecar).toEqual({
      name: "coprocessor-csharp",
      image: "proxybench/coprocessor-csharp:ci",
      args: [],
      env: { ASPNETCORE_URLS: "http://127.0.0.1:{{sidecarPort}}" },
      cpus: [0],
      ready: "/health",
    });
    expect(m.sidecar?.binary).toBeUndefined();
    expect(m.memoryLimitBytes).toBe(1 << 30);
    expect(m.tuning).toMatchObject({
      extension: "csharp",
      memoryLimit: "1073741824 bytes each (docker --memory)",
    });
  });
});

describe("the dry run of the study under docker", () => {
  /** A plan of one test on nginx and envoy: the cells the rows are listed for. */
  async function plan(test: string): Promise<Plan> {
    const scenario = { manifest: { name: test } };
    const cells = await Promise.all(
      [NGINX, ENVOY].map(async (f) => ({ proxy: await loadProxyFile(f, true), scenario })),
    );
    return { blocks: [{ cells }], skipped: [] } as unknown as Plan;
  }

  it("lists the C# rows as planned and names every image, with the command that builds them", async () => {
    const choices = await coprocessorChoices(ALL, { runtime: "docker", imageTag: "ci" });
    const text = renderExtensibilityRows(await plan("guid-response"), choices, {
      runtime: "docker",
      imageTag: "ci",
      fileExists: () => true,
      env: {},
    });
    expect(text).toContain("  guid-response · nginx: baseline, script, go, node, python, java, csharp\n");
    expect(text).toContain(
      "  guid-response · envoy: baseline, config, script, go, node, python, java, csharp\n",
    );
    expect(text).not.toMatch(/skipped csharp/);
    const images = /^images: (.*)$/m.exec(text)?.[1]?.split(", ");
    expect(images).toEqual([
      "proxybench/nginx:ci",
      "proxybench/envoy:ci",
      ...ALL.map((n) => `proxybench/coprocessor-${n}:ci`),
    ]);
    expect(text).toContain(
      "PROXIES=nginx,envoy COPROCESSORS=go,node,python,java,csharp IMAGE_TAG=ci docker buildx bake -f action/docker-bake.hcl",
    );
  });

  it("natively: C# skipped with its reason, no images", async () => {
    const choices = await coprocessorChoices(["node", "csharp"], { runtime: "native" });
    const text = renderExtensibilityRows(await plan("static-header"), choices, {
      runtime: "native",
      fileExists: () => true,
      env: {},
    });
    expect(text).toContain("  static-header · nginx: baseline, config, script, node\n");
    expect(text).toContain("    skipped csharp: image only: no native start here\n");
    expect(text).not.toContain("images:");
  });
});
