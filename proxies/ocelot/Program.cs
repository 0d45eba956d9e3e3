// Ocelot with the routes of OCELOT_CONFIG (ocelot.json rendered by proxybench: one catch-all
// route to the upstream). Listen address from ASPNETCORE_URLS.
using Ocelot.DependencyInjection;
using Ocelot.Middleware;

var config = Environment.GetEnvironmentVariable("OCELOT_CONFIG")
    ?? throw new InvalidOperationException("OCELOT_CONFIG is not set (path of ocelot.json)");

var builder = WebApplication.CreateBuilder(args);
builder.Configuration.AddJsonFile(config, optional: false, reloadOnChange: false);
builder.Services.AddOcelot(builder.Configuration);

var app = builder.Build();
await app.UseOcelot();
await app.RunAsync();
