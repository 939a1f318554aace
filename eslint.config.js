// Lint rules that guard errand's conventions: type-aware promise checks, type-only imports,
// no console in library code, and the layer rule (domain folders never import adapters).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const adapterModules = [
  "libsql",
  "pg",
  "graphile-worker",
  "hono",
  "hono/*",
  "@hono/*",
  "@modelcontextprotocol/*",
  "playwright-core",
  "node:http",
  "node:https",
];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "test/fixtures/static/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test tracks the promises test()/describe() return itself; awaiting them would serialize suites.
      "@typescript-eslint/no-floating-promises": [
        "error",
        { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["test", "describe", "it", "suite"] }] },
      ],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/**/*.ts"],
    // The CLI prints through output.ts; on Deno and Val Town the host's log is the console itself.
    ignores: ["src/interfaces/cli/output.ts", "src/interfaces/deno/**", "src/interfaces/fetch/**"],
    rules: { "no-console": "error" },
  },
  {
    // Domain layers stay free of transports, drivers and the browser library.
    // The Store interface (src/store/*.ts, not its backends) and the config module count as domain too.
    files: [
      "src/core/**",
      "src/task/**",
      "src/policy/**",
      "src/journal/**",
      "src/operations/**",
      "src/runner/**",
      "src/router/**",
      "src/config/**",
      "src/secrets/**",
      "src/sites/**",
      "src/files/**",
      "src/program/**",
      "src/store/*.ts",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...adapterModules.map((group) => ({ group: [group], message: "Domain code must not import an adapter module; depend on an interface instead." })),
            { group: ["**/store/sqlite/**", "**/store/postgres/**"], message: "Domain code depends on the Store interface, never on a storage backend." },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Val Town's val files: Deno modules that import by URL and npm: specifier, outside errand's
    // TypeScript project; test/deploy/valTownVals.test.ts holds them to wiring.
    files: ["deploy/**/*.ts"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain-JS scripts run on Node.
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
);
