// @ts-check
// Mutation testing for the pure render: `pnpm mutate` (docs/testing.md). stryker.effects.config.mjs
// reuses this for effects' Start and lifecycle: `pnpm mutate:effects`.
//
// Stryker copies the repository into a sandbox, mutates the TypeScript sources there, and runs, for
// each mutant, only the vitest tests that covered it. vitest.config.ts resolves @dispatch/* packages to
// their src/ (the "@dispatch/source" condition), so the tests load the mutated sources; no build needed.

/**
 * The options for one package: what to mutate, and the package whose tests may kill the mutants.
 * @param {string} name the report's name
 * @param {string} dir the package directory whose tests run
 * @param {string[]} mutate the globs to mutate
 * @returns {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export const mutationOptions = (name, dir, mutate) => ({
  testRunner: "vitest",
  // pnpm keeps plugins out of core's own node_modules, where Stryker looks by default.
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "stryker.vitest.config.ts", dir, related: true },
  mutate,
  // The machine is shared with the rest of the work; more workers only make timeouts likelier.
  concurrency: 2,
  // A static mutant (a module-level constant) is live in every test, so each one reruns the whole
  // package's tests: a fifth of the mutants, half the run time. `pnpm mutate --ignoreStatic false`
  // includes them.
  ignoreStatic: true,
  // On a loaded machine a mutant's tests can take a minute; a shorter bound counts that slowness as a
  // killed (timed-out) mutant.
  timeoutMS: 90_000,
  // Reruns only mutants whose code or tests changed since the last run (the file is not committed).
  incremental: true,
  incrementalFile: `reports/mutation/${name}-incremental.json`,
  // The event recorder writes each mutant's result as it is tested, so a long run can be read (and its
  // survivors worked on) before it ends.
  reporters: ["clear-text", "progress-append-only", "html", "json", "event-recorder"],
  eventReporter: { baseDir: `reports/mutation/${name}-events` },
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: ".stryker-tmp",
  // Stryker would rewrite tsconfig paths that leave the sandbox with TypeScript's JS API, which
  // TypeScript 7 (native) no longer has; the sandbox sits inside the repository, so no path leaves it.
  tsconfigFile: "no-tsconfig-rewrite.json",
  cleanTempDir: "always"
})

export default mutationOptions("render", "packages/render", ["packages/render/src/**/*.ts", "!packages/render/src/index.ts"])
