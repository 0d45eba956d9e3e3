// Client awareness, coprocessor: the RouterRequest stage of every client request goes to the
// coprocessor's /client-awareness, which validates the token: a break (401) is the client's
// answer; otherwise the client's name and version it set go to every subgraph request.
import { breakStatus, callStage } from "./coprocessor.mjs";

const CLIENT_HEADERS = ["apollographql-client-name", "apollographql-client-version"];
const clients = new WeakMap();

export const extension = {
  plugins: () => [
    {
      async onRequest({ request, fetchAPI, endResponse }) {
        if (!new URL(request.url).pathname.startsWith("/graphql")) return;
        const answer = await callStage("/client-awareness", "RouterRequest", request.headers, {
          method: request.method,
          path: new URL(request.url).pathname,
        });
        const status = breakStatus(answer);
        if (status !== undefined) {
          const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {});
          endResponse(
            new fetchAPI.Response(body, { status, headers: { "content-type": "application/json" } }),
          );
          return;
        }
        const set = Object.fromEntries(
          CLIENT_HEADERS.map((name) => [name, answer.headers?.[name]?.join(", ")]),
        );
        clients.set(request, set);
      },
      onFetch({ context, options, setOptions }) {
        const client = context?.request && clients.get(context.request);
        if (client) setOptions({ ...options, headers: { ...options.headers, ...client } });
      },
    },
  ],
};
