import { describe, expect, it } from "vitest";
import { ProxyManifest } from "../../../src/manifests/schema.js";
import { installHint } from "../../../src/runner/proxy-binary.js";

const FILE = "/my/proxies/myproxy/proxy.yml";

function proxy(native: Record<string, unknown>) {
  const manifest = ProxyManifest.parse({
    name: "myproxy",
    description: "d",
    native: { binary: "myproxy", version: { args: ["-v"], pattern: "(.*)" }, ...native },
  });
  return { manifest, file: FILE };
}

describe("how to get a missing proxy binary", () => {
  it.each([
    [{ package: "nginx-light" }, "sudo apt-get install nginx-light"],
    // the manifest's own command as written: setup asks for sudo itself
    [{ install: "npm run setup -- --study extensibility" }, "npm run setup -- --study extensibility"],
    [
      {},
      `put an executable 'myproxy' on PATH or in .tools/bin (${FILE} names no native.package or native.install to install it)`,
    ],
  ])("%j: %s", (native, hint) => {
    expect(installHint(proxy(native))).toBe(hint);
  });
});
