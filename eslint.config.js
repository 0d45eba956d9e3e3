import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "dist/",
      "report/dist/",
      "node_modules/",
      "coverage/",
      "**/*.k6.js",
      // k6 scripts: run by k6's own JavaScript runtime, with its globals and modules.
      "scenarios/**/*.js",
      "studies/**/*.js",
      // njs scripts: run by NGINX's own JavaScript runtime, with its modules.
      "proxies/**/*.js",
      "test-output/",
      // installed tools: Go binaries, the Node.js proxies, the Python venv (its packages ship JavaScript).
      ".tools/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ["*.js", "bin/*.js", "scripts/*.js", "coprocessors/node/*.js"],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The house rule: no function past about 60 lines (tests' describe blocks aside).
    files: ["src/**/*.ts", "report/src/**/*.ts", "bench/**/*.ts", "scripts/**/*.js", "bin/**/*.js"],
    rules: { "max-lines-per-function": ["error", { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ["**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Hive Gateway's configuration and plugins (proxies/hive-gateway): templates that the
    // gateway imports once rendered, outside any TypeScript project.
    files: ["**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { parserOptions: { projectService: false }, globals: { ...globals.node } },
  },
);
