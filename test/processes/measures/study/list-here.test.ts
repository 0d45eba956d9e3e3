import { describe, expect, it } from "vitest";
import { listStudies } from "../../../../src/measures/study/list.js";
import { routerBuilt } from "../../../support/measures/study/apollo-router.js";

// listStudies on this machine: it asks each native proxy for its version. The pure listing is in
// test/unit/measures/study/list.test.ts.

describe("study listings", () => {
  it("on this machine: the native subset of every study runs here, image-only proxies do not", async () => {
    const listings = await listStudies();
    const here = Object.fromEntries(
      listings.map((l) => [l.name, l.proxies.filter((p) => p.here).map((p) => p.proxy)]),
    );
    expect(here).toEqual({
      // Hive Gateway is installed into .tools by setup (npm ci of its lock); Apollo Router only
      // once built (npm run setup -- --study extensibility), which the tests' setup links.
      extensibility: ["nginx", "haproxy", "hive-gateway", ...(routerBuilt ? ["apollo-router"] : [])],
      // The gateway is built into .tools/bin by setup, like the upstream.
      "grpc-gateway": ["direct", "grpc-gateway", "nginx", "haproxy", "caddy"],
      llrp: ["haproxy", "nginx", "caddy"],
      ocelot: ["direct", "nginx"],
      "yarp-vs-httpclient": ["direct", "nginx", "haproxy"],
    });
  });
});
