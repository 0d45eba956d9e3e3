import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import { z } from "zod";
import { formatSchemaError, issuePath, UserError } from "../util/errors.js";
import { readUserFile } from "../util/files.js";
import { isDirectory, PROJECT_ROOT } from "../util/paths.js";
import { ProxyManifest, ScenarioManifest } from "./schema.js";
import { unknownPlaceholders } from "./template.js";

/**
 * Finds and validates manifests: `proxies/<name>/proxy.yml` and `scenarios/<name>/scenario.yml`
 * in the built-in folders, then in user folders (`--proxies-dir`, `--scenarios-dir`), which
 * override built-ins of the same name. Every problem names the file, the line and the field.
 */

interface Loaded<T> {
  manifest: T;
  /** The manifest's folder (absolute). */
  dir: string;
  /** The manifest file (absolute). */
  file: string;
  builtIn: boolean;
}
export type LoadedProxy = Loaded<ProxyManifest>;
export type LoadedScenario = Loaded<ScenarioManifest>;

export type ManifestSet = Awaited<ReturnType<typeof loadManifests>>;

export interface ManifestDirs {
  proxiesDirs?: string[];
  scenariosDirs?: string[];
  /** Replace the built-in folders (tests). */
  builtinProxiesDir?: string;
  builtinScenariosDir?: string;
}

export async function loadManifests(dirs: ManifestDirs = {}) {
  const [proxies, scenarios] = await Promise.all([
    loadKind("proxies", "proxy.yml", loadProxyFile, dirs.builtinProxiesDir, dirs.proxiesDirs),
    loadKind("scenarios", "scenario.yml", loadScenarioFile, dirs.builtinScenariosDir, dirs.scenariosDirs),
  ]);
  return { proxies, scenarios };
}

/**
 * The manifests of one kind, named as its folder in the project and its `--<kind>-dir` option
 * name it, from the built-in folder and then the user's.
 */
async function loadKind<T extends { manifest: { name: string } }>(
  kind: "proxies" | "scenarios",
  fileName: string,
  load: (file: string, builtIn: boolean) => Promise<T>,
  builtin = path.join(PROJECT_ROOT, kind),
  userDirs: string[] = [],
): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  const roots: Array<{ root: string; builtIn: boolean }> = [{ root: builtin, builtIn: true }];
  for (const dir of userDirs) {
    const root = path.resolve(dir);
    if (!(await isDirectory(root))) throw new UserError(`--${kind}-dir ${dir}: not a directory`);
    roots.push({ root, builtIn: false });
  }
  const problems: string[] = [];
  for (const { root, builtIn } of roots) {
    problems.push(...(await loadEachFolder(root, fileName, (file) => load(file, builtIn), out)));
  }
  if (problems.length > 0) throw new UserError(problems.join("\n"));
  return out;
}

/**
 * Loads `<root>/<folder>/<fileName>` of every folder of `root` that has one, in name order,
 * into `out` by manifest name (a later root overrides an earlier one). The messages of the files
 * that do not validate come back, so that every broken file is reported at once.
 */
export async function loadEachFolder<T extends { manifest: { name: string } }>(
  root: string,
  fileName: string,
  load: (file: string) => Promise<T>,
  out: Map<string, T>,
): Promise<string[]> {
  const problems: string[] = [];
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    const file = path.join(root, entry.name, fileName);
    if (!existsSync(file)) continue;
    try {
      const loaded = await load(file);
      out.set(loaded.manifest.name, loaded);
    } catch (err) {
      if (err instanceof UserError) problems.push(err.message);
      else throw err;
    }
  }
  return problems;
}

/** The sections of a proxy manifest that say how to run it. */
const RUN_SECTIONS = ["native", "image"] as const;

export async function loadProxyFile(file: string, builtIn = false): Promise<LoadedProxy> {
  const { manifest, dir } = await loadManifestFile(ProxyManifest, file, proxyProblems);
  return { manifest, dir, file, builtIn };
}

/**
 * Reads and validates a manifest file, whose name must be its folder's; `check` adds the
 * problems of its kind. Every problem is reported at once, each naming the file and the line.
 */
export async function loadManifestFile<T extends { name: string }>(
  schema: z.ZodType<T>,
  file: string,
  check: (manifest: T, at: FieldAt, dir: string) => string[] | Promise<string[]>,
): Promise<ParsedManifest<T> & { dir: string }> {
  const { manifest, at } = parseManifest(schema, await readUserFile(file), file);
  const dir = path.dirname(file);
  const problems = [
    ...checkFolderName(manifest.name, dir, at(["name"])),
    ...(await check(manifest, at, dir)),
  ];
  if (problems.length > 0) throw new UserError(problems.join("\n"));
  return { manifest, at, dir };
}

/** What a proxy manifest refers to that is not there: placeholders, templates, configs. */
async function proxyProblems(manifest: ProxyManifest, at: FieldAt, dir: string): Promise<string[]> {
  const problems = [
    ...RUN_SECTIONS.flatMap((section) => [
      ...checkPlaceholdersInStrings(at, [section, "args"], manifest[section]?.args ?? []),
      ...checkPlaceholdersInStrings(at, [section, "env"], Object.values(manifest[section]?.env ?? {})),
    ]),
    ...protocolConfigProblems(manifest, at),
  ];
  const templates = [
    ...RUN_SECTIONS.flatMap((section) => configTemplates([section], manifest[section]?.configs)),
    ...Object.entries(manifest.protocols).flatMap(([protocol, support]) =>
      configTemplates(["protocols", protocol], support?.configs),
    ),
    ...extensionTemplates(manifest),
  ];
  // A template shared by the native and image sections is checked (and reported) once.
  const checked = new Set<string>();
  for (const { fieldPath, t } of templates) {
    const templateFile = path.resolve(dir, t);
    if (!existsSync(templateFile)) {
      problems.push(`${at(fieldPath)}: ${issuePath(fieldPath)}: template ${t} not found in ${dir}`);
      continue;
    }
    if (checked.has(templateFile)) continue;
    checked.add(templateFile);
    problems.push(...templateProblems(templateFile, await readFile(templateFile, "utf8")));
  }
  return problems;
}

interface TemplateRef {
  /** The field that names the template (`<section>, "configs", i, "template"`). */
  fieldPath: PropertyKey[];
  t: string;
}

/** The templates of a section's configs, with the field that names each. */
function configTemplates(
  section: PropertyKey[],
  configs: ReadonlyArray<{ template: string }> = [],
): TemplateRef[] {
  return configs.map((c, i) => ({ fieldPath: [...section, "configs", i, "template"], t: c.template }));
}

/** The templates of the extensibility study's extension points, with the field that names each. */
function extensionTemplates(manifest: ProxyManifest): TemplateRef[] {
  return Object.entries(manifest.extensions ?? {}).flatMap(([kind, ext]) =>
    ext
      ? [
          ...configTemplates(["extensions", kind], ext.configs),
          ...Object.entries(ext.tests).flatMap(([test, point]) =>
            "configs" in point ? configTemplates(["extensions", kind, "tests", test], point.configs) : [],
          ),
        ]
      : [],
  );
}

export async function loadScenarioFile(file: string, builtIn = false): Promise<LoadedScenario> {
  const { manifest, dir } = await loadManifestFile(ScenarioManifest, file, scenarioProblems);
  return { manifest, dir, file, builtIn };
}

/** What a scenario manifest refers to that is not there, and load labels used twice. */
function scenarioProblems(manifest: ScenarioManifest, at: FieldAt, dir: string): string[] {
  const problems: string[] = [];
  if (manifest.engine === "k6" && !existsSync(path.resolve(dir, manifest.script))) {
    problems.push(`${at(["script"])}: script: ${manifest.script} not found in ${dir}`);
  }
  if (manifest.protoset !== undefined && !existsSync(path.resolve(dir, manifest.protoset))) {
    problems.push(`${at(["protoset"])}: protoset: ${manifest.protoset} not found in ${dir}`);
  }
  const labels = manifest.loads.map((l) => l.label);
  const dup = labels.findIndex((l, i) => labels.indexOf(l) !== i);
  if (dup >= 0) {
    problems.push(`${at(["loads", dup, "label"])}: loads[${dup}].label: '${labels[dup]}' is used twice`);
  }
  return problems;
}

/** `file:line` of a field of a manifest (the deepest part of its path present). */
type FieldAt = (fieldPath: readonly PropertyKey[]) => string;

/** A manifest's fields, and where a field is, for the errors found after parsing. */
export interface ParsedManifest<T> {
  manifest: T;
  at: FieldAt;
}

/**
 * Parses YAML text and validates it against `schema`. Errors read `file:line: field: message`.
 * Pure (no file access): the loader's tests feed it text.
 */
export function parseManifest<S extends z.ZodType>(
  schema: S,
  text: string,
  file: string,
): ParsedManifest<z.infer<S>> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => {
      const line = lineCounter.linePos(e.pos[0]).line;
      return `${file}:${line}: invalid YAML: ${e.message.split("\n")[0] ?? ""}`;
    });
    throw new UserError(lines.join("\n"));
  }
  const data: unknown = doc.toJS();
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new UserError(`${file}:1: (root): expected a mapping of fields`);
  }
  const lineOf = (fieldPath: readonly PropertyKey[]) => lineOfPath(doc, lineCounter, fieldPath);
  const at: FieldAt = (fieldPath) => {
    const line = lineOf(fieldPath);
    return line === undefined ? file : `${file}:${line}`;
  };
  const parsed = schema.safeParse(data);
  if (parsed.success) return { manifest: parsed.data, at };
  // One issue per unrecognized key, its path ending with the key, so the line is the key's.
  const issues = parsed.error.issues.flatMap((issue): z.core.$ZodIssue[] =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ ...issue, keys: [key], path: [...issue.path, key] }))
      : [issue],
  );
  throw new UserError(formatSchemaError(file, new z.ZodError(issues), lineOf));
}

/** Line of the deepest node of `fieldPath` present in the document (a key's own line for maps). */
function lineOfPath(
  doc: Document,
  lineCounter: LineCounter,
  fieldPath: readonly PropertyKey[],
): number | undefined {
  let node: unknown = doc.contents;
  let line = rangeLine(node, lineCounter);
  for (const key of fieldPath) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
      if (!pair) break;
      line = rangeLine(pair.key, lineCounter) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof key === "number") {
      const item: unknown = node.items[key];
      if (item === undefined) break;
      line = rangeLine(item, lineCounter) ?? line;
      node = item;
    } else {
      break;
    }
  }
  return line;
}

function rangeLine(node: unknown, lineCounter: LineCounter): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range ? lineCounter.linePos(range[0]).line : undefined;
}

/**
 * A protocol's config replaces a config of the native or image section with the same output:
 * one that replaces nothing would never be rendered. `at` gives `file:line` of a field. Pure.
 */
function protocolConfigProblems(manifest: ProxyManifest, at: FieldAt): string[] {
  const outputs = new Set(
    [...(manifest.native?.configs ?? []), ...(manifest.image?.configs ?? [])].map((c) => c.output),
  );
  return Object.entries(manifest.protocols).flatMap(([protocol, support]) =>
    (support?.configs ?? []).flatMap((c, i) =>
      outputs.has(c.output)
        ? []
        : [
            `${at(["protocols", protocol, "configs", i, "output"])}: protocols.${protocol}.configs[${i}].output: ` +
              `${c.output} replaces no config of the native or image section (their outputs: ${[...outputs].join(", ") || "none"})`,
          ],
    ),
  );
}

/** `where` is `file:line` of the manifest's `name` field. */
function checkFolderName(name: string, dir: string, where: string): string[] {
  const folder = path.basename(dir);
  return folder === name ? [] : [`${where}: name: '${name}' must equal its folder name '${folder}'`];
}

function checkPlaceholdersInStrings(at: FieldAt, field: PropertyKey[], values: string[]): string[] {
  const unknown = [...new Set(values.flatMap(unknownPlaceholders))];
  return unknown.length === 0
    ? []
    : [`${at(field)}: ${issuePath(field)}: unknown placeholder ${unknown.map((u) => `{{${u}}}`).join(", ")}`];
}

/** One line per unknown placeholder of a template: `file:line: unknown placeholder {{x}}`. Pure. */
function templateProblems(templateFile: string, text: string): string[] {
  const lines = text.split("\n");
  return unknownPlaceholders(text).map((name) => {
    const index = lines.findIndex((l) => unknownPlaceholders(l).includes(name));
    return `${templateFile}${index >= 0 ? `:${index + 1}` : ""}: unknown placeholder {{${name}}}`;
  });
}
