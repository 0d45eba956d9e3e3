// Fails when package-lock.json lacks an optional dependency of a locked package (a platform
// binding that the registry did not serve when the lock was written). `npm ci` refuses such a
// lock on a clean checkout, while `npm install` over an existing node_modules does not notice.
//
// Checks the project's lock and each Node.js proxy's (proxies/<name>/package-lock.json).
//
//   node scripts/check-lockfile.js
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const lockFiles = [
  path.join(root, "package-lock.json"),
  ...readdirSync(path.join(root, "proxies"))
    .map((proxy) => path.join(root, "proxies", proxy, "package-lock.json"))
    .filter((file) => existsSync(file)),
];

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

let failed = false;
for (const lockFile of lockFiles) {
  const lock = JSON.parse(readFileSync(lockFile, "utf8"));
  const missing = [];
  for (const [location, entry] of Object.entries(lock.packages ?? {})) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (!candidateLocations(location, name).some((at) => at in lock.packages)) {
        missing.push(`${location || "(root)"} -> ${name}`);
      }
    }
  }
  if (missing.length > 0) {
    process.stderr.write(
      `${lockFile}: ${missing.length} optional dependencies are missing, so \`npm ci\` will refuse it:\n` +
        missing.map((line) => `  ${line}\n`).join("") +
        "Pin the depending package to a version whose bindings the registry serves, then `npm install`.\n",
    );
    failed = true;
  }
}
if (failed) process.exit(1);
process.stdout.write(`check-lockfile: every optional dependency is locked (${lockFiles.length} locks)\n`);
