// Fails when a package-lock.json of the project (the root's, and those of Node.js proxies and
// coprocessors that setup.sh installs with `npm ci`) lacks an optional dependency of a locked
// package: a platform binding that the registry did not serve when the lock was written.
// `npm ci` refuses such a lock on a clean checkout, while `npm install` over an existing
// node_modules does not notice.
//
//   node scripts/check-lockfile.js [DIR]   (DIR: the project, by default this checkout)
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
const SKIPPED = new Set(["node_modules", ".git", ".tools", "dist", "test-output"]);

/** Where npm would look for `name` from the package at `location`, nearest first. */
function candidateLocations(location, name) {
  const found = [];
  let at = location;
  while (at !== "") {
    found.push(`${at}/node_modules/${name}`);
    const cut = at.lastIndexOf("/node_modules/");
    at = cut === -1 ? "" : at.slice(0, cut);
  }
  found.push(`node_modules/${name}`);
  return found;
}

/** Every package-lock.json below `dir`, outside installed or generated folders. */
function lockFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) return lockFiles(at);
    return entry.name === "package-lock.json" ? [at] : [];
  });
}

/** "location -> dependency" for each optional dependency the lock does not hold. */
function missingOptional(lockFile) {
  const packages = JSON.parse(readFileSync(lockFile, "utf8")).packages ?? {};
  const missing = [];
  for (const [location, entry] of Object.entries(packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (!candidateLocations(location, name).some((at) => at in packages)) {
        missing.push(`${location || "(root)"} -> ${name}`);
      }
    }
  }
  return missing;
}

const files = lockFiles(root);
let failed = false;
for (const lockFile of files) {
  const missing = missingOptional(lockFile);
  if (missing.length === 0) continue;
  failed = true;
  process.stderr.write(
    `${path.relative(root, lockFile)}: ${missing.length} optional dependencies are missing, so \`npm ci\` will refuse it:\n` +
      missing.map((line) => `  ${line}\n`).join("") +
      "Pin the depending package to a version whose bindings the registry serves, then `npm install`.\n",
  );
}
if (failed) process.exit(1);
process.stdout.write(`check-lockfile: every optional dependency is locked (${files.length} lock files)\n`);
