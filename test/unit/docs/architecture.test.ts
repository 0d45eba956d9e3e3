import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

// docs/ARCHITECTURE.md's layers, checked against the imports between the folders of src/, and
// the imports between src/'s files checked for circles.

const SRC = path.join(PROJECT_ROOT, "src");
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
/**
 * The floor under the table: folders that import nothing of src/, then results. Here, not in the
 * docs: a folder of the floor that imports another folder (render, the reports' primitives,
 * importing a measurement) fails whatever the docs say.
 */
const BOTTOM: Record<string, string[]> = { util: [], stats: [], github: [], render: [], results: ["util"] };
/**
 * The arrows against the floors left, each row's folder and the later rows' folders it imports:
 * another fails even when the table names it, and one that is gone must be dropped from here.
 */
const AGAINST_LEFT: Record<string, string[]> = {
  // the type of the change points publish writes to changes.js
  publish: ["changes"],
  // a study run's table in the PR comment
  report: ["studies"],
};
/** On top, importing any folder. */
const TOP = "commands";

/** The folder of src/ that each import of `file` names (its own folder included). */
function importedFolders(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT)]
    .map(([, spec]) => path.relative(SRC, path.resolve(path.dirname(file), spec!)).split(path.sep))
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
  folder: string;
  imports: string[];
  /** Folders of a later row it imports, each with the files named as importing it. */
  against: Array<{ folder: string; files: string[] }>;
}

/** docs/ARCHITECTURE.md's section on the layers. */
function layersSection(): string {
  const docs = readFileSync(path.join(PROJECT_ROOT, "docs", "ARCHITECTURE.md"), "utf8");
  const start = docs.indexOf("## Layers");
  return docs.slice(start, docs.indexOf("\n## ", start + 1));
}

function layerRows(): LayerRow[] {
  return layersSection()
    .split("\n")
    .filter((line) => /^\| `\w+` \|/.test(line))
    .map((line) => {
      const [folder, imports, against] = line
        .split("|")
        .slice(1, 4)
        .map((cell) => cell.trim());
      return {
        folder: folder!.replaceAll("`", ""),
        imports: imports!.split(",").map((f) => f.trim()),
        against: [...against!.matchAll(/(\w+) \(([^)]*)\)/g)].map(([, name, inner]) => ({
          folder: name!,
          files: [...inner!.matchAll(/`([\w./-]+\.ts)`/g)].map(([, file]) => file!),
        })),
      };
    });
}

describe("docs/ARCHITECTURE.md's layers are the imports between src/'s folders", () => {
  const actual = importsByFolder();
  const rows = layerRows();

  it("names every folder of src/ once: the floor under the table, a row, or the top", () => {
    expect(rows.length).toBeGreaterThan(5);
    const named = [...Object.keys(BOTTOM), ...rows.map((r) => r.folder), TOP];
    expect(named.sort()).toEqual([...actual.keys()].sort());
  });

  it("the floor under the table imports what the text says", () => {
    const text = layersSection().split("\n| folder |")[0]!;
    for (const [folder, imports] of Object.entries(BOTTOM)) {
      expect(text, folder).toContain(`\`${folder}\``);
      expect([...actual.get(folder)!], folder).toEqual(imports);
    }
  });

  it("each row lists exactly the folders its files import", () => {
    for (const row of rows) {
      const listed = [...row.imports, ...row.against.map((a) => a.folder)].sort();
      expect(listed, row.folder).toEqual([...actual.get(row.folder)!].sort());
    }
  });

  it("an import lies against the floors exactly when it is named so, with every file that makes it", () => {
    const floor = new Map<string, number>(Object.keys(BOTTOM).map((f) => [f, f === "results" ? 1 : 0]));
    rows.forEach((row, i) => floor.set(row.folder, i + 2));
    for (const row of rows) {
      for (const f of row.imports)
        expect(floor.get(f), `${row.folder} -> ${f}`).toBeLessThan(floor.get(row.folder)!);
      for (const a of row.against) {
        expect(floor.get(a.folder), `${row.folder} -> ${a.folder}`).toBeGreaterThan(floor.get(row.folder)!);
        expect(a.files.sort(), `${row.folder} -> ${a.folder}`).toEqual(filesImporting(row.folder, a.folder));
      }
    }
  });

  it("no arrow runs against the floors but the ones left, each still there", () => {
    const against = rows
      .filter((row) => row.against.length > 0)
      .map((row) => [row.folder, row.against.map((a) => a.folder).sort()]);
    expect(Object.fromEntries(against)).toEqual(AGAINST_LEFT);
  });
});

/**
 * Circles left in src/, each the files it runs through: a circle through any other file, or
 * through these and another, fails the test below.
 */
const KNOWN_CIRCLES: string[][] = [
  // the figures' changes need the model's column types; the model adds the changes to its groups
  ["report/changes.ts", "report/model.ts"],
  // the extensibility study reuses the study run's steps; the study run dispatches to it
  ["studies/extensibility/run.ts", "studies/run.ts"],
];

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
