// Static header, configuration: header propagation sends `source: config` to every subgraph
// request (Apollo Router: `headers: all: request: insert`).
export const extension = {
  propagateHeaders: {
    fromClientToSubgraphs: () => ({ source: "config" }),
  },
};
