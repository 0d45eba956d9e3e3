"""The extensibility study's coprocessor in Python: Apollo Router's coprocessor HTTP protocol
(coprocessors/README.md), standard library only. Usage: python3 server.py --listen 127.0.0.1:PORT
"""

import argparse
import base64
import hashlib
import hmac
import json
import signal
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LANGUAGE = "python"
JWT_KEY = b"proxybench-extensibility-key"


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def client_from_token(authorization):
    """The client name and version of a valid HS256 bearer token, else None."""
    if not authorization.startswith("Bearer "):
        return None
    parts = authorization[len("Bearer "):].split(".")
    if len(parts) != 3:
        return None
    try:
        expected = hmac.new(JWT_KEY, f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(expected, b64url(parts[2])):
            return None
        claims = json.loads(b64url(parts[1]))
    except ValueError:
        return None
    name, version = claims.get("client_name"), claims.get("client_version")
    if not isinstance(name, str) or not isinstance(version, str):
        return None
    return {"apollographql-client-name": name, "apollographql-client-version": version}


def first_header(payload, name):
    values = (payload.get("headers") or {}).get(name) or [""]
    return values[0]


TESTS = {
    "/static-subgraph": lambda payload: {"source": LANGUAGE},
    "/guid-response": lambda payload: {f"x-guid-{i}": str(uuid.uuid4()) for i in range(1, 11)},
    "/client-awareness": lambda payload: client_from_token(first_header(payload, "authorization")),
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body are written separately: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK hold each answer for about 40 ms
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # no access log
        pass

    def send(self, status, body, headers=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self.send(200, "ok\n")
        else:
            self.send(404, "")

    def read_body(self):
        """The request body, sent with a Content-Length or chunked (HAProxy's HTTP client)."""
        if "chunked" not in (self.headers.get("Transfer-Encoding") or "").lower():
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        chunks = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline().strip():  # trailers, up to the blank line
                    pass
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline()  # the CRLF after each chunk

    def do_POST(self):
        raw = self.read_body()
        test = TESTS.get(self.path)
        if test is None:
            return self.send(404, "")
        try:
            payload = json.loads(raw)
        except ValueError:
            return self.send(400, "not JSON\n")
        mirror = self.headers.get("x-proxybench-mirror") == "1"
        reply = {"content-type": "application/json"}
        header_set = test(payload)
        if header_set is None:
            payload["control"] = {"break": 401}
            payload["body"] = json.dumps({"errors": [{"message": "invalid token"}]})
            return self.send(401 if mirror else 200, json.dumps(payload), reply)
        headers = dict(payload.get("headers") or {})
        for name, value in header_set.items():
            headers[name] = [value]
            if mirror:
                reply[f"x-coprocessor-header-{name}"] = value
        payload["headers"] = headers
        payload["control"] = "continue"
        self.send(200, json.dumps(payload), reply)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    # the default listen backlog of 5 drops connections a burst opens: a 1 s SYN retry each
    request_queue_size = 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", default="127.0.0.1:8081")
    host, port = parser.parse_args().listen.rsplit(":", 1)
    server = Server((host, int(port)), Handler)
    print(f"listening on {host}:{server.server_address[1]}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
