import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  describeGrpcAnswer,
  emptyGrpcCall,
  grpcAnswerProblem,
  grpcStatusOfHttp,
  HEALTH_METHOD,
  probeGrpc,
} from "../../../src/engines/grpc-health.js";
import { freePort } from "../../../src/util/ports.js";

/**
 * The gRPC health check client against an h2c server on 127.0.0.1 that answers the way gRPC
 * servers and proxies do: status in the trailers, a trailers-only error, or a proxy's HTTP error.
 */
type Mode = "ok" | "unavailable" | "http502";
const MODES: readonly string[] = ["ok", "unavailable", "http502"];
let server: http2.Http2Server;
let base: string;
/** How the health method itself is answered; /<mode>/Check is answered per <mode>. */
let healthMode: Mode = "ok";

function answer(stream: http2.ServerHttp2Stream, mode: Mode): void {
  if (mode === "http502") {
    stream.respond({ ":status": 502, "content-type": "text/html" });
    stream.end("<html>502 Bad Gateway</html>");
  } else if (mode === "unavailable") {
    stream.respond(
      {
        ":status": 200,
        "content-type": "application/grpc",
        "grpc-status": "14",
        "grpc-message": "down%20now",
      },
      { endStream: true },
    );
  } else {
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(Buffer.from([0, 0, 0, 0, 2, 8, 1])); // HealthCheckResponse{status: SERVING}
  }
}

beforeAll(async () => {
  server = http2.createServer();
  server.on("stream", (stream, headers) => {
    stream.on("data", () => {});
    const first = String(headers[":path"]).split("/")[1] ?? "";
    stream.on("end", () => answer(stream, MODES.includes(first) ? (first as Mode) : healthMode));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("the gRPC health check over h2c", () => {
  it("reads the status from the trailers, a trailers-only answer, or a proxy's HTTP status", async () => {
    expect(await emptyGrpcCall(base, "/ok/Check")).toEqual({ grpcStatus: 0 });
    expect(await emptyGrpcCall(base, "/unavailable/Check")).toEqual({
      grpcStatus: 14,
      grpcMessage: "down now",
    });
    expect(await emptyGrpcCall(base, "/http502/Check")).toEqual({
      grpcStatus: 14,
      grpcMessage: "HTTP status 502",
    });
    const refused = await emptyGrpcCall(`http://127.0.0.1:${await freePort()}`, HEALTH_METHOD);
    expect(refused).toEqual({ error: "ECONNREFUSED" });
  });

  it("a target that answers at all is up; the probe wants OK", async () => {
    expect(await grpcAnswerProblem(base)).toBeUndefined();
    expect(await grpcAnswerProblem(`http://127.0.0.1:${await freePort()}`)).toBe("no answer (ECONNREFUSED)");
    expect(await probeGrpc(base)).toEqual({ ok: true, reasons: [], statusCodes: { OK: 3 } });
    healthMode = "http502";
    try {
      expect(await grpcAnswerProblem(base)).toBeUndefined();
      const probe = await probeGrpc(base);
      expect(probe).toMatchObject({ ok: false, statusCodes: { UNAVAILABLE: 3 } });
      expect(probe.reasons).toEqual([
        `gRPC health check ${HEALTH_METHOD}: UNAVAILABLE (14): HTTP status 502`,
      ]);
    } finally {
      healthMode = "ok";
    }
  });

  it("maps HTTP statuses as gRPC clients do, and describes answers", () => {
    expect([400, 401, 403, 404, 429, 502, 503, 504, 500].map(grpcStatusOfHttp)).toEqual([
      13, 16, 7, 12, 14, 14, 14, 14, 2,
    ]);
    expect(describeGrpcAnswer({ grpcStatus: 0 })).toBe("OK (0)");
    expect(describeGrpcAnswer({ error: "ECONNRESET" })).toBe("no answer (ECONNRESET)");
  });
});
