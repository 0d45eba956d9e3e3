// Client awareness, configuration: the gateway's JWT authentication (HS256 with the study's key,
// coprocessors/README.md; a missing or bad token is refused), and header propagation sends the
// client's name and version from the validated token's claims to the subgraph.
const JWT_KEY = "proxybench-extensibility-key";

export const extension = {
  jwt: {
    signingKeyProviders: [() => JWT_KEY],
    tokenVerification: { algorithms: ["HS256"] },
    reject: { missingToken: true, invalidToken: true },
    forward: { payload: false },
  },
  propagateHeaders: {
    fromClientToSubgraphs: ({ context }) => ({
      "apollographql-client-name": context.jwt?.payload?.client_name,
      "apollographql-client-version": context.jwt?.payload?.client_version,
    }),
  },
};
