import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

// docs/ARCHITECTURE.md's layers, checked against the imports between the folders of src/, and
// the imports between src/'s files checked for circles.

const SRC = path.join(PROJECT_ROOT, "src");
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
/**
 * The folders on floor 0, which import nothing of src/. Here, not in the docs: one of them that
 * imports another folder (render, the reports' primitives, importing a measurement) fails whatever
 * the docs say.
 */
const FLOOR_ZERO = ["github", "render", "stats", "util"];
/** The most floors the layers may have. */
const MAX_FLOORS = 8;

/** The folder of `root` (src/ by default) that each import of `file` names (its own folder included). */
function importedFolders(file: string, root = SRC): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT)]
    .map(([, spec]) => path.relative(root, path.resolve(path.dirname(file), spec!)).split(path.sep))
    .filter((parts) => parts.length > 1 && parts[0] !== "..")
    .map((parts) => parts[0]!);
}

/** The .ts files of src/<folder>/ (relative to it). */
function sources(folder: string): string[] {
  return readdirSync(path.join(SRC, folder), { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith(".ts"),
  );
}

/** The files of src/<folder>/ that import src/<target>/, relative to src/<folder>/. */
function filesImporting(folder: string, target: string): string[] {
  return sources(folder)
    .filter((f) => importedFolders(path.join(SRC, folder, f)).includes(target))
    .sort();
}

/** Each folder of src/ -> the other folders of src/ its files import. */
function importsByFolder(): Map<string, Set<string>> {
  const byFolder = new Map<string, Set<string>>();
  for (const entry of readdirSync(SRC, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const folder = entry.name;
    const imported = sources(folder).flatMap((f) => importedFolders(path.join(SRC, folder, f)));
    byFolder.set(folder, new Set(imported.filter((f) => f !== folder)));
  }
  return byFolder;
}

interface LayerRow {
  floor: number;
  folder: string;
  imports: string[];
}

/** docs/ARCHITECTURE.md's section on the layers. */
function layersSection(): string {
  const docs = readFileSync(path.join(PROJECT_ROOT, "docs", "ARCHITECTURE.md"), "utf8");
  const start = docs.indexOf("## Layers");
  return docs.slice(start, docs.indexOf("\n## ", start + 1));
}

function layerRows(): LayerRow[] {
  return [...layersSection().matchAll(/^\| (\d+) \| `([\w-]+)` \| ([^|]*)\|$/gm)].map(
    ([, floor, folder, imports]) => ({
      floor: Number(floor),
      folder: folder!,
      imports: imports!
        .split(",")
        .map((f) => f.trim())
        .filter((f) => f !== ""),
    }),
  );
}

describe("docs/ARCHITECTURE.md's layers are the imports between src/'s folders", () => {
  const actual = importsByFolder();
  const rows = layerRows();
  const floor = new Map(rows.map((r) => [r.folder, r.floor]));

  it("names every folder of src/ once", () => {
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.map((r) => r.folder).sort()).toEqual([...actual.keys()].sort());
  });

  it("each row lists exactly the folders its files import", () => {
    for (const row of rows)
      expect(row.imports.sort(), row.folder).toEqual([...actual.get(row.folder)!].sort());
  });

  it("the folders of floor 0 import nothing of src/, whatever the docs say", () => {
    for (const folder of FLOOR_ZERO) {
      expect(floor.get(folder), folder).toBe(0);
      expect([...(actual.get(folder) ?? [])], folder).toEqual([]);
    }
    expect(
      rows
        .filter((r) => r.floor === 0)
        .map((r) => r.folder)
        .sort(),
    ).toEqual(FLOOR_ZERO);
  });

  it("every import runs down a floor or more, named with the files that make one that does not", () => {
    for (const [folder, imported] of actual)
      for (const target of imported) {
        const files = filesImporting(folder, target);
        expect(floor.get(target), `${folder} -> ${target} (${files.join(", ")})`).toBeLessThan(
          floor.get(folder)!,
        );
      }
  });

  it("a folder's floor is one above the highest it imports", () => {
    for (const row of rows) {
      const highest = Math.max(-1, ...row.imports.map((f) => floor.get(f)!));
      expect(row.floor, row.folder).toBe(highest + 1);
    }
  });

  it(`has at most ${MAX_FLOORS} floors, as the text says`, () => {
    const floors = Math.max(...rows.map((r) => r.floor)) + 1;
    expect(floors).toBeLessThanOrEqual(MAX_FLOORS);
    expect(layersSection()).toContain(
      `${["", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight"][floors]} floors`,
    );
  });
});

/**
 * The kinds of measurement, each a folder of src/measures/: a kind imports no other kind's files,
 * but those named here (a study is run as wall-clock runs are).
 */
const KIND_IMPORTS: Record<string, string[]> = { study: ["wall-clock"] };

/** The kinds of src/measures/ (its folders). */
function kinds(): string[] {
  return readdirSync(path.join(SRC, "measures"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Each kind's files -> the other kinds they import, as "file -> kind". */
function importsBetweenKinds(): Map<string, string[]> {
  const measures = path.join(SRC, "measures");
  return new Map(
    kinds().map((kind) => [
      kind,
      sources(path.join("measures", kind)).flatMap((f) =>
        importedFolders(path.join(measures, kind, f), measures)
          .filter((k) => k !== kind)
          .map((k) => `${kind}/${f} -> ${k}`),
      ),
    ]),
  );
}

describe("the kinds of measurement (src/measures/<kind>/)", () => {
  it("are the four at least, each a folder", () => {
    expect(kinds()).toEqual(expect.arrayContaining(["counted", "max-rate", "study", "wall-clock"]));
  });

  it("import no other kind's files but those named", () => {
    for (const [kind, found] of importsBetweenKinds()) {
      const allowed = KIND_IMPORTS[kind] ?? [];
      expect(
        found.filter((line) => !allowed.some((k) => line.endsWith(` -> ${k}`))),
        kind,
      ).toEqual([]);
    }
  });
});

/**
 * Circles left in src/, each the files it runs through: a circle through any other file, or
 * through these and another, fails the test below.
 */
const KNOWN_CIRCLES: string[][] = [];

/** Each .ts file of src/ (relative to it) -> the files of src/ it imports, types included. */
function importsByFile(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const abs = path.join(SRC, file);
      const imported = [...readFileSync(abs, "utf8").matchAll(IMPORT)]
        .map(([, spec]) => path.relative(SRC, path.resolve(path.dirname(abs), spec!.replace(/\.js$/, ".ts"))))
        .filter((f) => known.has(f));
      return [file, [...new Set(imported)]];
    }),
  );
}

/** The circles a depth-first walk of `graph` meets, each as its path from and back to one file. */
function importCircles(graph: Map<string, string[]>): string[][] {
  const done = new Set<string>();
  const walked: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string): void => {
    const at = walked.indexOf(file);
    if (at >= 0) {
      circles.push([...walked.slice(at), file]);
      return;
    }
    if (done.has(file)) return;
    walked.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    walked.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) visit(file);
  return circles;
}

describe("the imports between src/'s files", () => {
  const circles = importCircles(importsByFile());
  const within = (circle: string[], files: string[]) => circle.every((f) => files.includes(f));

  it("run in no circle but the known ones", () => {
    const unknown = circles.filter((c) => !KNOWN_CIRCLES.some((files) => within(c, files)));
    expect(unknown.map((c) => c.join(" -> "))).toEqual([]);
  });

  it("still close each known circle (else drop it from the list)", () => {
    for (const files of KNOWN_CIRCLES)
      expect(
        circles.some((c) => within(c, files)),
        files.join(", "),
      ).toBe(true);
  });

  it("a circle is found and named by the path it runs", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts", "d.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", []],
    ]);
    expect(importCircles(graph)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });
});
