import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};
/** The package version (src/ runs from dist/src/, two levels below package.json). */
export const VERSION: string = pkg.version;
