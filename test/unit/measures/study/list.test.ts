import { describe, expect, it } from "vitest";
import type { NativeAvailability } from "../../../../src/runner/proxy-binary.js";
import { formatStudyListings, studyListings } from "../../../../src/measures/study/list.js";
import { loadStudies } from "../../../../src/measures/study/load.js";

describe("study listings", () => {
  it("mark each proxy by whether it runs here (pure)", async () => {
    const availability = new Map<string, NativeAvailability>([
      ["direct", { kind: "direct" }],
      ["nginx", { kind: "found", path: "/usr/sbin/nginx", version: "1.22.1" }],
      ["ocelot", { kind: "image-only" }],
    ]);
    const studies = await loadStudies();
    const ocelot = studyListings([studies.get("ocelot")!], availability)[0];
    expect(ocelot).toMatchObject({ name: "ocelot", seed: "002", engine: "ab", layout: "ab" });
    expect(ocelot?.proxies).toEqual([
      { proxy: "direct", here: true, note: "no proxy" },
      { proxy: "ocelot", here: false, note: "image only" },
      { proxy: "nginx", here: true, note: "native 1.22.1" },
    ]);
    expect(formatStudyListings([ocelot!])).toBe(
      [
        "Studies (proxybench study NAME):",
        "  ocelot  Ocelot gateway vs NGINX vs going direct, at 1000 concurrent connections",
        "    seed 002, ab, ab table; 2 of 3 proxies run here:",
        "    + direct (no proxy), - ocelot (image only), + nginx (native 1.22.1)",
      ].join("\n"),
    );
  });
});
