import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { Engine } from "../../../src/results/schema.js";
import { defaultCpuLayout, formatCpuLayout } from "../../../src/runner/cpus.js";
import { StudyLayout } from "../../../src/measures/study/schema.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { tableAfter } from "../../support/docs/markdown.js";

// The lists the docs spell out in full (engines, study layouts, image-only proxies, the default
// core layouts) are the ones the code and the manifests hold.

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), "utf8");

/** The line of `file` that `pattern` matches, its first group split on `sep`. */
function listed(file: string, pattern: RegExp, sep: RegExp): string[] {
  const m = pattern.exec(read(file));
  if (!m) throw new Error(`${file}: nothing matches ${String(pattern)}`);
  return m[1]!
    .split(sep)
    .map((s) => s.replace(/`/g, "").trim())
    .filter(Boolean);
}

describe("lists the docs give in full", () => {
  it("docs/studies.md's study.yml: every engine and every layout", () => {
    expect(listed("docs/studies.md", /^engine: ab +# (.*)$/m, /\|/)).toEqual(Engine.options);
    expect(listed("docs/studies.md", /^layout: ab +# (.*)$/m, /\|/)).toEqual(StudyLayout.options);
  });

  it("docs/runner.md's --engine: every engine", () => {
    expect(listed("docs/runner.md", /^\| `-e, --engine ([^`]*)` \|/m, /\\\|/)).toEqual(Engine.options);
  });

  it("docs/actions.md's image-only proxies: those with an image: and no native: section", () => {
    const imageOnly = readdirSync(path.join(PROJECT_ROOT, "proxies"))
      .filter((p) => {
        const m = parseYaml(read(`proxies/${p}/proxy.yml`)) as { native?: unknown; image?: unknown };
        return m.image !== undefined && m.native === undefined;
      })
      .sort();
    const named = listed("docs/actions.md", /the image-only proxies \(([^)]*)\)/, /,/);
    expect(named.sort()).toEqual(imageOnly);
    expect(imageOnly.length).toBeGreaterThan(2);
  });

  it("docs/runner.md's default layouts: the ones the runner picks for that many cores", () => {
    const table = tableAfter(read("docs/runner.md"), "### CPU layouts", (h) => h[0] === "cores");
    expect(table.rows.length).toBeGreaterThanOrEqual(4);
    for (const { cells } of table.rows) {
      const cores = Number(cells[0]);
      expect(/^`([^`]+)`/.exec(cells[1]!)?.[1], `${cores} cores`).toBe(
        formatCpuLayout(defaultCpuLayout(cores).layout),
      );
    }
  });
});
