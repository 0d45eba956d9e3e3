// Static header, in-process plugin: `source: script` on every subgraph request.
import { withSubgraphHeaders } from "./plugin.mjs";

export const extension = {
  plugins: () => [
    {
      onFetch({ options, setOptions }) {
        withSubgraphHeaders(options, setOptions, { source: "script" });
      },
    },
  ],
};
