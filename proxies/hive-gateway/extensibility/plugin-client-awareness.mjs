// Client awareness, in-process plugin: validates the bearer token of the client's request (401
// when it is missing or bad) and sends the client's name and version to every subgraph request.
import { clientFromToken, refusal, withSubgraphHeaders } from "./plugin.mjs";

const clients = new WeakMap();

export const extension = {
  plugins: () => [
    {
      onRequest({ request, fetchAPI, endResponse }) {
        if (!new URL(request.url).pathname.startsWith("/graphql")) return;
        const client = clientFromToken(request.headers.get("authorization"));
        if (client) clients.set(request, client);
        else endResponse(refusal(fetchAPI, 401, "invalid token"));
      },
      onFetch({ context, options, setOptions }) {
        const client = context?.request && clients.get(context.request);
        if (client) withSubgraphHeaders(options, setOptions, client);
      },
    },
  ],
};
