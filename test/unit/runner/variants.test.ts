import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkResumeFlags } from "../../../src/runner/plan.js";
import { checkVariants, parseVariant, variantDirs, withLayout } from "../../../src/runner/variants.js";
import type { Settings } from "../../../src/results/schema.js";
import { lightScenarioDir } from "../../support/runner/helpers.js";

describe("parseVariant", () => {
  it("reads NAME=DIR, resolved against the working directory", () => {
    expect(parseVariant("head=pr", "/w")).toEqual({ name: "head", dir: "/w/pr" });
  });

  it("reads NAME:TAG=DIR: the variant's proxies run from images with that tag", () => {
    expect(parseVariant("base:pb-base=/tmp/a=b", "/w")).toEqual({
      name: "base",
      dir: "/tmp/a=b",
      imageTag: "pb-base",
    });
  });

  it.each([
    ["head", /expected NAME=DIR or NAME:TAG=DIR/],
    ["=dir", /expected NAME=DIR/],
    ["head:=dir", /--variant head: '' is not an image tag/],
    ["head:a/b=dir", /--variant head: 'a\/b' is not an image tag/],
  ])("rejects %s, naming the flag", (text, message) => {
    expect(() => parseVariant(text, "/w")).toThrow(message);
  });

  it("--resume shows a variant's image tag when it differs from the recorded one", () => {
    const recorded = { variants: [{ name: "base", dir: "/b", imageTag: "one" }] } as unknown as Settings;
    expect(() =>
      checkResumeFlags(recorded, { variants: [{ name: "base", dir: "/b", imageTag: "two" }] }),
    ).toThrow("--variant base:two=/b differs from the recorded base:one=/b");
  });
});

describe("withLayout (--variant-proxies-dir, --variant-scenarios-dir)", () => {
  const variants = [parseVariant("base=/w/base"), parseVariant("head=/w/head")];

  it("puts each variant's folders inside its own DIR", () => {
    expect(withLayout(variants, { proxiesDir: "bench/proxies" })).toEqual([
      { name: "base", dir: "/w/base", proxiesDir: "/w/base/bench/proxies" },
      { name: "head", dir: "/w/head", proxiesDir: "/w/head/bench/proxies" },
    ]);
    expect(withLayout(variants, {})).toEqual(variants);
  });

  it.each([
    [
      { proxiesDir: "/abs" },
      "--variant-proxies-dir: expected a folder inside each variant's DIR, got '/abs'",
    ],
    [
      { scenariosDir: "../up" },
      "--variant-scenarios-dir: expected a folder inside each variant's DIR, got '../up'",
    ],
  ])("refuses %j, naming the flag", (layout, message) => {
    expect(() => withLayout(variants, layout)).toThrow(message);
  });

  it("goes with --variant only", () => {
    expect(() => withLayout([], { proxiesDir: "p" })).toThrow("--variant-proxies-dir goes with --variant");
  });

  it("reads a variant's scenarios from the folder given, and says which folders it looked for", async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), "pb-layout-"));
    try {
      for (const side of ["base", "head"])
        await lightScenarioDir({ root: path.join(tmp, side, "bench", "scen") });
      const laid = withLayout([parseVariant(`base=${tmp}/base`), parseVariant(`head=${tmp}/head`)], {
        scenariosDir: "bench/scen",
      });
      await expect(checkVariants(laid)).resolves.toBeUndefined();
      const dirs = await variantDirs(laid[1], { scenariosDirs: ["/x"] } as unknown as Settings);
      expect(dirs.scenariosDirs).toEqual(["/x", path.join(tmp, "head", "bench", "scen")]);
      await expect(checkVariants(withLayout(laid, { scenariosDir: "other" }))).rejects.toThrow(
        /--variant base=.*: holds neither proxies\/ nor other\/$/,
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
