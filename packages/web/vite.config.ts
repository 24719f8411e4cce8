// Builds the web app (app/) into dist/app: one HTML page and hashed assets, nothing loaded from elsewhere.
import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

export default defineConfig({
  root: fileURLToPath(new URL("./app", import.meta.url)),
  // Served at the service's root, beside /api/v1.
  base: "/",
  // The workspace packages are bundled from their TypeScript sources: the app builds without `tsc -b` first.
  // The typed client is bundled from its source, found by path rather than as a dependency: the server depends
  // on this package for the built files, and the client on the server for the API's declaration.
  resolve: {
    conditions: ["@dispatch/source", "browser", "module", "import", "default"],
    alias: { "@dispatch/client": fileURLToPath(new URL("../client/src/index.ts", import.meta.url)) }
  },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("./dist/app", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // The service compresses on the fly; the size report would only slow the build.
    reportCompressedSize: false,
    modulePreload: { polyfill: false }
  },
  logLevel: "warn"
})
