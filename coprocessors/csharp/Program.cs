// The extensibility study's coprocessor in C#: Apollo Router's coprocessor HTTP protocol
// (coprocessors/README.md). Image only: built by action/docker-bake.hcl, run under --runtime docker.
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

const string Language = "csharp";
var jwtKey = Encoding.UTF8.GetBytes("proxybench-extensibility-key");

var builder = WebApplication.CreateSlimBuilder(args);
builder.Logging.ClearProviders();
var app = builder.Build();

app.MapGet("/health", () => "ok\n");
app.MapPost("/static-subgraph", (HttpContext http, JsonObject payload) =>
    Reply(http, payload, new() { ["source"] = Language }));
app.MapPost("/guid-response", (HttpContext http, JsonObject payload) =>
    Reply(http, payload, Enumerable.Range(1, 10).ToDictionary(i => $"x-guid-{i}", _ => Guid.NewGuid().ToString())));
app.MapPost("/client-awareness", (HttpContext http, JsonObject payload) =>
    Reply(http, payload, ClientFromToken(FirstHeader(payload, "authorization"))));
app.Run();

string FirstHeader(JsonObject payload, string name) =>
    payload["headers"]?[name]?[0]?.GetValue<string>() ?? "";

// The client name and version of a valid HS256 bearer token, else null.
Dictionary<string, string>? ClientFromToken(string authorization)
{
    if (!authorization.StartsWith("Bearer ")) return null;
    var parts = authorization["Bearer ".Length..].Split('.');
    if (parts.Length != 3) return null;
    try
    {
        var expected = HMACSHA256.HashData(jwtKey, Encoding.ASCII.GetBytes($"{parts[0]}.{parts[1]}"));
        if (!CryptographicOperations.FixedTimeEquals(expected, Base64Url(parts[2]))) return null;
        var claims = JsonNode.Parse(Base64Url(parts[1]));
        var name = claims?["client_name"]?.GetValue<string>();
        var version = claims?["client_version"]?.GetValue<string>();
        if (name is null || version is null) return null;
        return new() { ["apollographql-client-name"] = name, ["apollographql-client-version"] = version };
    }
    catch (Exception e) when (e is FormatException or JsonException or InvalidOperationException)
    {
        return null;
    }
}

byte[] Base64Url(string text)
{
    var s = text.Replace('-', '+').Replace('_', '/');
    return Convert.FromBase64String(s.PadRight(s.Length + (4 - s.Length % 4) % 4, '='));
}

IResult Reply(HttpContext http, JsonObject payload, Dictionary<string, string>? set)
{
    var mirror = http.Request.Headers["x-proxybench-mirror"] == "1";
    if (set is null)
    {
        payload["control"] = new JsonObject { ["break"] = 401 };
        payload["body"] = "{\"errors\":[{\"message\":\"invalid token\"}]}";
        return Results.Json(payload, statusCode: mirror ? 401 : 200);
    }
    var headers = payload["headers"] as JsonObject ?? new JsonObject();
    foreach (var (name, value) in set)
    {
        headers[name] = new JsonArray(value);
        if (mirror) http.Response.Headers[$"x-coprocessor-header-{name}"] = value;
    }
    payload["headers"] = headers;
    payload["control"] = "continue";
    return Results.Json(payload);
}
