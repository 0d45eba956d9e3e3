import { describe, expect, it } from "vitest";
import { renderTemplate, unknownPlaceholders, type TemplateVars } from "../../../src/manifests/template.js";

const vars: TemplateVars = {
  listenHost: "127.0.0.1",
  listenPort: "8080",
  upstreamHost: "127.0.0.1",
  upstreamPort: "9090",
  upstreamGrpcPort: "9091",
  cores: "2",
  cpuList: "2,3",
  workdir: "/tmp/w",
  dir: "/p/nginx",
  sidecarPort: "",
  upstreamGrpcsPort: "",
  tlsCert: "/run/tls/server.pem",
  tlsKey: "/run/tls/server.key",
  tlsCertKey: "/run/tls/server-with-key.pem",
  tlsCa: "/run/tls/ca.pem",
};

describe("renderTemplate", () => {
  it.each([
    ["listen {{listenHost}}:{{listenPort}};", "listen 127.0.0.1:8080;"],
    ["server {{ upstreamHost }}:{{upstreamPort}}", "server 127.0.0.1:9090"],
    ["worker_processes {{cores}}; # {{cpuList}}", "worker_processes 2; # 2,3"],
    ["pid {{workdir}}/x.pid; {{dir}}", "pid /tmp/w/x.pid; /p/nginx"],
    ["no placeholder {single} $var", "no placeholder {single} $var"],
  ])("%s", (text, expected) => {
    expect(renderTemplate(text, vars, "t.conf")).toBe(expected);
  });

  it("names the file and the unknown placeholder", () => {
    expect(() => renderTemplate("a {{port}} b {{cores}} {{x}}", vars, "/p/nginx/nginx.conf")).toThrow(
      /^\/p\/nginx\/nginx\.conf: unknown placeholder \{\{port\}\}, \{\{x\}\}/,
    );
  });

  it("lists unknown placeholders once", () => {
    expect(unknownPlaceholders("{{a}} {{a}} {{cores}} {{ b }}")).toEqual(["a", "b"]);
  });
});
