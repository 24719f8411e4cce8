// The vitest config for the HTTP face's mutation runs (stryker.http.config.mjs): the mutation config, its tests
// limited to the files the run's target names (DISPATCH_MUTATION_TESTS, set by that config). Each is named from the
// root and from the package directory, which Stryker gives vitest as its `dir`.
import base from "./stryker.vitest.config.ts"

const names = (process.env["DISPATCH_MUTATION_TESTS"] ?? "").split(",").filter((name) => name !== "")
const files = names.length === 1 ? names[0] : `{${names.join(",")}}`

export default { ...base, test: { ...base.test, include: [`test/${files}.test.ts`, `packages/server/test/${files}.test.ts`] } }
