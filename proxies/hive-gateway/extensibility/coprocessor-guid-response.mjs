// GUID response headers, coprocessor: the RouterResponse stage of every response goes to the
// coprocessor's /guid-response, whose header map (with ten x-guid-N) the client gets.
import { callStage } from "./coprocessor.mjs";

export const extension = {
  plugins: () => [
    {
      async onResponse({ response }) {
        const answer = await callStage("/guid-response", "RouterResponse", response.headers, {
          statusCode: response.status,
        });
        for (const [name, values] of Object.entries(answer.headers ?? {})) {
          if (name !== "content-length" && name !== "content-type")
            response.headers.set(name, values.join(", "));
        }
      },
    },
  ],
};
