// Fails when a test file is in no vitest project (vitest would never run it), in more than one,
// or in a project other than its folder's: a test's project is the first folder under test/
// (test/unit/, test/processes/, test/load/), and a project's folder holds only test files.
// Membership is vitest's own, read from the project's vitest.config.ts.
//
//   node scripts/check-test-projects.js [DIR]   (DIR: the project, by default this checkout)
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createVitest } from "vitest/node";

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
const SKIPPED = new Set(["node_modules", ".git", ".tools", "dist", "test-output", "results"]);
// vitest's default include: any of these is a test file wherever it sits.
const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;

/** Every file below `dir`, relative to root, outside installed or generated folders. */
function filesBelow(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesBelow(at);
    return entry.isFile() ? [path.relative(root, at).split(path.sep).join("/")] : [];
  });
}

/** Each test file vitest finds, with the names of the projects that include it. */
async function projectsOfFiles() {
  const vitest = await createVitest("test", { root, watch: false }, {}, {});
  try {
    const projectsOf = new Map();
    for (const spec of await vitest.globTestSpecifications()) {
      const file = path.relative(root, spec.moduleId).split(path.sep).join("/");
      projectsOf.set(file, [...(projectsOf.get(file) ?? []), spec.project.name]);
    }
    return { projectsOf, names: vitest.projects.map((p) => p.name) };
  } finally {
    await vitest.close();
  }
}

/** One line per file that breaks the convention. */
function problems(files, projectsOf, names) {
  const folders = names.map((name) => `test/${name}/`).join(", ");
  const found = [];
  for (const file of files) {
    const projects = projectsOf.get(file) ?? [];
    const folder = /^test\/([^/]+)\//.exec(file)?.[1];
    const inProjectFolder = folder !== undefined && names.includes(folder);
    if (!TEST_FILE.test(file)) {
      if (inProjectFolder) {
        found.push(`${file}: not a test: helpers belong in test/support/, data in test/fixtures/`);
      }
    } else if (projects.length === 0) {
      found.push(`${file}: in no project, so vitest never runs it: move it under one of ${folders}`);
    } else if (projects.length > 1) {
      found.push(`${file}: in ${projects.length} projects (${projects.join(", ")}): it would run twice`);
    } else if (projects[0] !== folder) {
      found.push(`${file}: in project ${projects[0]}, but not in its folder test/${projects[0]}/`);
    }
  }
  return found;
}

const { projectsOf, names } = await projectsOfFiles();
const files = filesBelow(root);
const found = problems(files, projectsOf, names);
if (found.length > 0) {
  process.stderr.write(
    `check-test-projects: ${found.length} test files break the convention (a test's project is its folder under test/):\n` +
      found.map((line) => `  ${line}\n`).join(""),
  );
  process.exit(1);
}
const counts = names.map((name) => `${name} ${[...projectsOf.values()].filter((p) => p[0] === name).length}`);
process.stdout.write(
  `check-test-projects: every test file is in its folder's project (${counts.join(", ")})\n`,
);
