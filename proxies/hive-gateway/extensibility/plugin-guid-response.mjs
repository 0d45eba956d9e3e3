// GUID response headers, in-process plugin: ten new GUIDs on every response to the client.
import { guidHeaders } from "./plugin.mjs";

export const extension = {
  plugins: () => [
    {
      onResponse({ response }) {
        for (const [name, value] of Object.entries(guidHeaders())) response.headers.set(name, value);
      },
    },
  ],
};
