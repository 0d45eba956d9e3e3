// The extensibility study's coprocessor calls for Hive Gateway: one stage of Apollo Router's
// coprocessor HTTP protocol per request (coprocessors/README.md) to the coprocessor that
// proxybench starts beside the gateway. The coprocessor answers with the complete new header
// map, or `control: {break: status}` to stop the request.
import { randomUUID } from "node:crypto";

const COPROCESSOR = "http://127.0.0.1:{{sidecarPort}}";

/** Headers as the protocol carries them: a map of lists, names in lower case. */
function headerMap(headers) {
  const out = {};
  for (const [name, value] of headers) (out[name] ??= []).push(value);
  return out;
}

/** Posts one stage to an endpoint and returns the coprocessor's answer (a non-2xx status throws). */
export async function callStage(endpoint, stage, headers, extra = {}) {
  const res = await fetch(COPROCESSOR + endpoint, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      version: 1,
      stage,
      control: "continue",
      id: randomUUID(),
      headers: headerMap(headers),
      ...extra,
    }),
  });
  if (!res.ok) throw new Error(`coprocessor ${endpoint}: status ${res.status}`);
  return res.json();
}

/** The break status of an answer, or undefined when it says continue. */
export function breakStatus(answer) {
  return typeof answer.control === "object" ? answer.control?.break : undefined;
}

/** One value per header from the protocol's map of lists. */
export function flatHeaders(map) {
  return Object.fromEntries(Object.entries(map ?? {}).map(([name, values]) => [name, values.join(", ")]));
}
