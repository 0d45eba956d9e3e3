import { readFileSync } from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "./util/paths.js";

const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string };

/** The package version, read from package.json (from src/ under tests and from dist/src/ when built). */
export const VERSION: string = pkg.version;
