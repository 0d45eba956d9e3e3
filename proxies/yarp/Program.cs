// Direct forwarding with YARP: every request goes to UPSTREAM_URL through IHttpForwarder, with
// one shared, pooled HttpMessageInvoker (no routes, no config, no per-request allocation of a
// client). Listen address from ASPNETCORE_URLS.
using System.Diagnostics;
using System.Net;
using Yarp.ReverseProxy.Forwarder;

var upstream = Environment.GetEnvironmentVariable("UPSTREAM_URL")
    ?? throw new InvalidOperationException("UPSTREAM_URL is not set (e.g. http://127.0.0.1:8081)");

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddHttpForwarder();
var app = builder.Build();

var invoker = new HttpMessageInvoker(new SocketsHttpHandler
{
    UseProxy = false,
    AllowAutoRedirect = false,
    AutomaticDecompression = DecompressionMethods.None,
    UseCookies = false,
    EnableMultipleHttp2Connections = true,
    ActivityHeadersPropagator = new ReverseProxyPropagator(DistributedContextPropagator.Current),
    ConnectTimeout = TimeSpan.FromSeconds(15),
});
var requestConfig = new ForwarderRequestConfig { ActivityTimeout = TimeSpan.FromSeconds(100) };
var logger = app.Logger;

app.Map("/{**catch-all}", async (HttpContext context, IHttpForwarder forwarder) =>
{
    var error = await forwarder.SendAsync(context, upstream, invoker, requestConfig, HttpTransformer.Default);
    if (error != ForwarderError.None)
    {
        var failure = context.GetForwarderErrorFeature();
        logger.LogWarning(failure?.Exception, "forwarding failed: {Error}", error);
    }
});

app.Run();
