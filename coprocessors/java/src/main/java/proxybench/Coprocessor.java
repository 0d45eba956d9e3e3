// The extensibility study's coprocessor in Java: Apollo Router's coprocessor HTTP protocol
// (coprocessors/README.md) on the JDK's HTTP server, JSON with Jackson.
// Usage: java -jar coprocessor.jar --listen 127.0.0.1:PORT
package proxybench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public final class Coprocessor {
  private static final String LANGUAGE = "java";
  // The study's token key (public, for benchmarks only).
  private static final byte[] JWT_KEY = "proxybench-extensibility-key".getBytes(StandardCharsets.UTF_8);
  private static final int MAX_BODY = 1 << 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What one endpoint does: the headers it sets, or empty to stop the request (401). */
  @FunctionalInterface
  private interface Test {
    Optional<Map<String, String>> run(JsonNode headers);
  }

  private static final Map<String, Test> TESTS =
      Map.of(
          "/static-subgraph", headers -> Optional.of(Map.of("source", LANGUAGE)),
          "/guid-response", headers -> Optional.of(guidHeaders()),
          "/client-awareness", headers -> clientFromToken(first(headers, "authorization")));

  private Coprocessor() {}

  private static Map<String, String> guidHeaders() {
    Map<String, String> set = new LinkedHashMap<>();
    for (int i = 1; i <= 10; i++) set.put("x-guid-" + i, UUID.randomUUID().toString());
    return set;
  }

  private static String first(JsonNode headers, String name) {
    JsonNode values = headers == null ? null : headers.get(name);
    return values != null && values.isArray() && values.size() > 0 ? values.get(0).asText("") : "";
  }

  /** The client's name and version of a valid HS256 bearer token with both claims. */
  static Optional<Map<String, String>> clientFromToken(String authorization) {
    if (!authorization.startsWith("Bearer ")) return Optional.empty();
    String[] parts = authorization.substring("Bearer ".length()).split("\\.", -1);
    if (parts.length != 3) return Optional.empty();
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(JWT_KEY, "HmacSHA256"));
      byte[] expected = mac.doFinal((parts[0] + "." + parts[1]).getBytes(StandardCharsets.UTF_8));
      byte[] given = Base64.getUrlDecoder().decode(parts[2]);
      if (!MessageDigest.isEqual(expected, given)) return Optional.empty();
      JsonNode claims = JSON.readTree(Base64.getUrlDecoder().decode(parts[1]));
      JsonNode name = claims.get("client_name");
      JsonNode version = claims.get("client_version");
      if (name == null || !name.isTextual() || version == null || !version.isTextual()) return Optional.empty();
      return Optional.of(
          Map.of(
              "apollographql-client-name", name.asText(),
              "apollographql-client-version", version.asText()));
    } catch (IllegalArgumentException | IOException | NoSuchAlgorithmException | InvalidKeyException e) {
      return Optional.empty();
    }
  }

  private static void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (path.equals("/health")) {
        send(exchange, 200, "text/plain", "ok\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      Test test = TESTS.get(path);
      if (test == null || !exchange.getRequestMethod().equals("POST")) {
        send(exchange, 404, "text/plain", "not found\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      ObjectNode payload;
      try (InputStream in = exchange.getRequestBody()) {
        JsonNode parsed = JSON.readTree(in.readNBytes(MAX_BODY));
        if (parsed == null || !parsed.isObject()) throw new IOException("not a JSON object");
        payload = (ObjectNode) parsed;
      } catch (IOException e) {
        send(exchange, 400, "text/plain", "not JSON\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      boolean mirror = "1".equals(exchange.getRequestHeaders().getFirst("x-proxybench-mirror"));
      int status = answer(payload, test, mirror ? exchange : null);
      send(exchange, status, "application/json", JSON.writeValueAsBytes(payload));
    }
  }

  /** Changes the payload as the protocol says; with `mirror`, also sets the mirrored headers. */
  private static int answer(ObjectNode payload, Test test, HttpExchange mirror) {
    JsonNode headers = payload.get("headers");
    Optional<Map<String, String>> set = test.run(headers);
    if (set.isEmpty()) {
      payload.putObject("control").put("break", 401);
      payload.put("body", "{\"errors\":[{\"message\":\"invalid token\"}]}");
      return mirror != null ? 401 : 200;
    }
    ObjectNode out = headers != null && headers.isObject() ? ((ObjectNode) headers).deepCopy() : JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, String> h : set.get().entrySet()) {
      ArrayNode values = out.putArray(h.getKey());
      values.add(h.getValue());
      if (mirror != null) mirror.getResponseHeaders().set("x-coprocessor-header-" + h.getKey(), h.getValue());
    }
    payload.set("headers", out);
    payload.put("control", "continue");
    return 200;
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("content-type", type);
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }

  public static void main(String[] args) throws IOException {
    // Headers and body are written separately: without TCP_NODELAY, Nagle's algorithm holds the
    // body until the client's delayed ACK (40 ms on Linux) whenever the client waits for both.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    String listen = "127.0.0.1:8081";
    for (int i = 0; i + 1 < args.length; i++) if (args[i].equals("--listen")) listen = args[i + 1];
    int colon = listen.lastIndexOf(':');
    InetSocketAddress address =
        new InetSocketAddress(listen.substring(0, colon), Integer.parseInt(listen.substring(colon + 1)));
    HttpServer server = HttpServer.create(address, 1024);
    server.createContext("/", Coprocessor::handle);
    server.setExecutor(Executors.newCachedThreadPool());
    Runtime.getRuntime().addShutdownHook(new Thread(() -> server.stop(0)));
    server.start();
    System.out.println("listening on " + listen);
  }
}
