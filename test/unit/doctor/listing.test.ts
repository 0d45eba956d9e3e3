import { describe, expect, it } from "vitest";
import { loadManifests } from "../../../src/manifests/load.js";
import { listScenarios, renderProxies, renderScenarios } from "../../../src/doctor/listing.js";

describe("proxybench list's sections", () => {
  it("lists the built-in scenarios by name, each load with its model, rate or VUs and length", async () => {
    const scenarios = listScenarios(await loadManifests({}));
    const names = scenarios.map((s) => s.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    const passthrough = scenarios.find((s) => s.name === "passthrough")!;
    expect(passthrough.requests).toEqual(["GET /api/values"]);
    expect(renderScenarios([passthrough])).toContain(
      "loads: default (constant-arrival-rate 32 VUs 1s), vus-32 (constant-vus 32 VUs 5s), max (max-throughput 10s)",
    );
  });

  it("names an image beside a native binary, not beside 'image only'", () => {
    const entry = {
      name: "envoy",
      description: "Envoy",
      kind: "proxy" as const,
      nativeAvailable: false,
      image: true,
      protocols: ["http1", "grpc (over h2c)"],
      source: "proxies/envoy/proxy.yml",
    };
    const imageOnly = renderProxies([{ ...entry, native: "image only" }]);
    const both = renderProxies([{ ...entry, native: "envoy 1.31 at /usr/bin/envoy" }]);
    expect(imageOnly).toContain("envoy              image only\n");
    expect(both).toContain("envoy              envoy 1.31 at /usr/bin/envoy, image\n");
    expect(both).toContain("fronts: http1, grpc (over h2c)");
  });
});
