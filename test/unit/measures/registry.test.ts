import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMMENT_KINDS, COMMENT_ORDER } from "../../../src/measures/index.js";

const MEASURES = path.join(import.meta.dirname, "../../../src/measures");

/** Each kind's `...Section` exported by its comment.ts (a study's comment is its own: none). */
async function sectionsOfKinds(): Promise<Map<string, unknown>> {
  const kinds = readdirSync(MEASURES, { withFileTypes: true }).filter((e) => e.isDirectory());
  const sections = new Map<string, unknown>();
  for (const kind of kinds) {
    if (!readdirSync(path.join(MEASURES, kind.name)).includes("comment.ts")) continue;
    const module = (await import(path.join(MEASURES, kind.name, "comment.ts"))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (name.endsWith("Section") && typeof value === "function") sections.set(kind.name, value);
    }
  }
  return sections;
}

describe("the registry of the kinds (src/measures/index.ts)", () => {
  it("lists every kind's PR-comment section, each once", async () => {
    const registered = COMMENT_ORDER.map((key) => COMMENT_KINDS[key].section);
    const sections = await sectionsOfKinds();
    expect([...sections.keys()].sort()).toEqual(["counted", "wall-clock"]);
    expect(new Set(registered)).toEqual(new Set(sections.values()));
    expect(registered).toHaveLength(new Set(registered).size);
  });

  it("orders the comment: the counted section first, then the wall clock's", () => {
    expect(COMMENT_ORDER.map((key) => COMMENT_KINDS[key].label)).toEqual(["counted", "wall clock"]);
  });
});
