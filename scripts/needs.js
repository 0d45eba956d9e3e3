// What `scripts/setup.sh --study NAME --engine NAME` installs for a study or an engine: one
// `command=package` line each (the command that shows it is installed, or an absolute path for
// a file such as a dynamic module; its Debian package, `go` for a tool setup.sh builds into
// .tools/bin, `maven` for the Java coprocessor's jar, `npm:<proxy>` for a Node.js proxy it
// installs from its folder's lock, or `cargo:<proxy>` for a Rust proxy it builds with cargo at
// the version of its folder's crate.yml).
// Reads studies/<name>/study.yml and proxies/<name>/proxy.yml; k6 is always built by setup.sh.
// `--crate PROXY` prints that proxy's crate.yml as one line: crate version bin.
//
//   node scripts/needs.js --study ocelot --engine wrk
//   node scripts/needs.js --crate apollo-router
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Debian packages of the load generators; k6 is always built, vegeta on demand (`go`). */
export const ENGINE_PACKAGES = {
  k6: [],
  wrk: [["wrk", "wrk"]],
  ab: [["ab", "apache2-utils"]],
  vegeta: [["vegeta", "go"]],
  h2load: [["h2load", "nghttp2-client"]],
};

function fail(message) {
  process.stderr.write(`setup.sh: ${message}\n`);
  process.exit(2);
}

function readYaml(file) {
  return parse(readFileSync(file, "utf8"));
}

export function engineNeeds(engine) {
  const needs = ENGINE_PACKAGES[engine];
  if (!needs) fail(`--engine ${engine}: unknown engine (known: ${Object.keys(ENGINE_PACKAGES).join(", ")})`);
  return needs;
}

export function studyNeeds(name) {
  const file = path.join(root, "studies", name, "study.yml");
  if (!existsSync(file)) {
    const known = readdirSync(path.join(root, "studies")).join(", ");
    fail(`--study ${name}: unknown study (known: ${known})`);
  }
  const study = readYaml(file);
  const needs = [...engineNeeds(study.engine)];
  for (const proxy of study.proxies ?? []) {
    const manifest = path.join(root, "proxies", proxy, "proxy.yml");
    const loaded = existsSync(manifest) ? readYaml(manifest) : {};
    const native = loaded.native;
    // Image-only proxies run with --runtime docker; a binary without a package is the user's.
    if (native?.binary && native.package) needs.push([native.binary, native.package]);
    // A Node.js proxy (hive-gateway): its package.json and lock, installed into .tools/<proxy>.
    else if (native?.binary && existsSync(path.join(root, "proxies", proxy, "package-lock.json"))) {
      needs.push([native.binary, `npm:${proxy}`]);
    }
    // A Rust proxy (apollo-router): built with cargo, whose build scripts run protoc on files
    // that import protobuf's well-known types (Debian ships those apart, in libprotobuf-dev).
    else if (native?.binary && existsSync(crateFile(proxy))) {
      needs.push(
        [native.binary, `cargo:${proxy}`],
        ["protoc", "protobuf-compiler"],
        ["/usr/include/google/protobuf/timestamp.proto", "libprotobuf-dev"],
      );
    }
    if (study.extensibility) needs.push(...extensionNeeds(loaded.extensions ?? {}));
  }
  for (const name of study.extensibility?.coprocessors ?? []) needs.push(...coprocessorNeeds(name));
  return needs;
}

function crateFile(proxy) {
  return path.join(root, "proxies", proxy, "crate.yml");
}

/** A Rust proxy's pinned build (its crate.yml): crate, version and the binary it installs. */
export function crateOf(proxy) {
  const file = crateFile(proxy);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(proxy) || !existsSync(file)) fail(`--crate ${proxy}: no ${file}`);
  const { crate, version, bin } = readYaml(file) ?? {};
  for (const [field, value, pattern] of [
    ["crate", crate, /^[a-z0-9][a-z0-9_-]*$/],
    ["version", version, /^[0-9]+\.[0-9]+\.[0-9]+$/],
    ["bin", bin, /^[a-z0-9][a-z0-9_-]*$/],
  ]) {
    if (typeof value !== "string" || !pattern.test(value))
      fail(`${file}: ${field}: expected ${pattern}, got ${value}`);
  }
  return { crate, version, bin };
}

/** The files an extension point needs (a dynamic module) and their packages. */
function extensionNeeds(extensions) {
  return Object.values(extensions)
    .filter((kind) => kind.requires)
    .map((kind) => [kind.requires.file, kind.requires.package]);
}

/** Coprocessors built from this repository (proxybench-coprocessor-*) are Go tools; python3 is a package. */
function coprocessorNeeds(name) {
  const file = path.join(root, "coprocessors", name, "coprocessor.yml");
  const binary = existsSync(file) ? readYaml(file).native?.binary : undefined;
  if (!binary) return [];
  // Java: a jar built with Maven; the others in Go.
  if (existsSync(path.join(root, "coprocessors", name, "pom.xml"))) return [[binary, "maven"]];
  if (binary.startsWith("proxybench-coprocessor-")) return [[binary, "go"]];
  if (binary === "python3") return [["python3", "python3"]];
  return [];
}

const args = process.argv.slice(2);
const needs = [];
for (let i = 0; i < args.length; i++) {
  const [flag, inline] = args[i].split("=", 2);
  const value = inline ?? args[++i];
  if (value === undefined) fail(`${flag} needs a value`);
  if (flag === "--study") needs.push(...studyNeeds(value));
  else if (flag === "--engine") needs.push(...engineNeeds(value));
  else if (flag === "--crate") {
    const { crate, version, bin } = crateOf(value);
    process.stdout.write(`${crate} ${version} ${bin}\n`);
  } else fail(`unknown option '${flag}' (known: --study NAME, --engine NAME, --crate PROXY)`);
}
for (const [command, pkg] of needs) process.stdout.write(`${command}=${pkg}\n`);
