// Static header, coprocessor: the SubgraphRequest stage of every subgraph request goes to the
// coprocessor's /static-subgraph, whose header map (with `source: <language>`) is sent on.
import { callStage, flatHeaders } from "./coprocessor.mjs";

export const extension = {
  plugins: () => [
    {
      async onFetch({ url, options, setOptions }) {
        const answer = await callStage(
          "/static-subgraph",
          "SubgraphRequest",
          Object.entries(options.headers ?? {}),
          {
            serviceName: "products",
            uri: url,
            method: options.method ?? "POST",
          },
        );
        setOptions({ ...options, headers: flatHeaders(answer.headers) });
      },
    },
  ],
};
