import { z } from "zod";
import { Results, SCHEMA_VERSION } from "./schema.js";

export const SCHEMA_ID = `https://proxybench.dev/schema/results-v${SCHEMA_VERSION}.json`;

/** JSON Schema of results.json, as published in results.schema.json at the repository root. */
export function resultsJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Results, { io: "input", target: "draft-2020-12" });
  return { ...schema, $id: SCHEMA_ID, title: "proxybench results" };
}
