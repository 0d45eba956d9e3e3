import { existsSync } from "node:fs";
import path from "node:path";
import { TOOLS_BIN } from "../../../../src/util/paths.js";

/**
 * Apollo Router is built only by `npm run setup -- --study extensibility` (about 30 minutes,
 * once per machine: a per-user cache); the tests' setup links it into .tools/bin when it is
 * there. Tests that run it skip without it, saying so; tests that list what runs here expect it
 * only when it is built.
 */
export const ROUTER_BIN = path.join(TOOLS_BIN, "apollo-router");
export const routerBuilt = existsSync(ROUTER_BIN);
export const ROUTER_NOT_BUILT = `skipped: ${ROUTER_BIN} is not built (npm run setup -- --study extensibility builds it)`;
