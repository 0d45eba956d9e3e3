// The extensibility study's script variant for NGINX (njs 0.7): the same three tests as the
// coprocessors (coprocessors/README.md), in process.
// The crypto module (HMAC); the global `crypto` is WebCrypto (random values).
import cryptoModule from "crypto";

// The study's token key (public, for benchmarks only): coprocessors/README.md.
const JWT_KEY = "proxybench-extensibility-key";

function source() {
  return "script";
}

function guid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.prototype.map.call(b, (x) => (x + 0x100).toString(16).slice(1)).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function guidHeaders(r) {
  for (let i = 1; i <= 10; i++) r.headersOut[`x-guid-${i}`] = guid();
}

function base64url(text) {
  return text.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

// "name|version" when the bearer token is a valid HS256 JWT with both claims, else "".
function clientIdentity(r) {
  const m = /^Bearer (.+)$/.exec(r.headersIn.Authorization || "");
  const parts = m ? m[1].split(".") : [];
  if (parts.length !== 3) return "";
  const signature = base64url(
    cryptoModule.createHmac("sha256", JWT_KEY).update(`${parts[0]}.${parts[1]}`).digest("base64"),
  );
  if (signature !== parts[2]) return "";
  try {
    const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString());
    if (typeof claims.client_name !== "string" || typeof claims.client_version !== "string") return "";
    return `${claims.client_name}|${claims.client_version}`;
  } catch (e) {
    return "";
  }
}

export default { source, guidHeaders, clientIdentity };
