// Forwarding by hand: an endpoint that sends the same method, path, query and body to
// UPSTREAM_URL with one HttpClient shared by every request, then copies the status, the
// content headers and the body back. Listen address from ASPNETCORE_URLS.
using System.Net;

var upstream = new Uri(Environment.GetEnvironmentVariable("UPSTREAM_URL")
    ?? throw new InvalidOperationException("UPSTREAM_URL is not set (e.g. http://127.0.0.1:8081)"));

// One client for the life of the process: pooled keep-alive connections to the upstream.
var client = new HttpClient(new SocketsHttpHandler
{
    UseProxy = false,
    AllowAutoRedirect = false,
    AutomaticDecompression = DecompressionMethods.None,
    UseCookies = false,
    PooledConnectionLifetime = TimeSpan.FromMinutes(10),
    ConnectTimeout = TimeSpan.FromSeconds(15),
})
{
    Timeout = TimeSpan.FromSeconds(100),
};

var builder = WebApplication.CreateBuilder(args);
var app = builder.Build();

app.Map("/{**path}", async (HttpContext context) =>
{
    var request = context.Request;
    var target = new Uri(upstream, $"{request.PathBase}{request.Path}{request.QueryString}");
    using var message = new HttpRequestMessage(new HttpMethod(request.Method), target);
    if (request.ContentLength > 0 || request.Headers.TransferEncoding.Count > 0)
    {
        message.Content = new StreamContent(request.Body);
        if (request.ContentType is { } contentType)
        {
            message.Content.Headers.TryAddWithoutValidation("Content-Type", contentType);
        }
    }

    using var response = await client.SendAsync(message, HttpCompletionOption.ResponseHeadersRead, context.RequestAborted);
    context.Response.StatusCode = (int)response.StatusCode;
    if (response.Content.Headers.ContentType is { } type)
    {
        context.Response.ContentType = type.ToString();
    }
    if (response.Content.Headers.ContentLength is { } length)
    {
        context.Response.ContentLength = length;
    }
    await response.Content.CopyToAsync(context.Response.Body, context.RequestAborted);
});

app.Run();
