import { describe, expect, it } from "vitest";
import { checkResumeFlags } from "../../src/runner/plan.js";
import { parseVariant } from "../../src/runner/variants.js";
import type { Settings } from "../../src/results/schema.js";

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
