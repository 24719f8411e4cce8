// @ts-check
// Mutation testing for effects' Start and lifecycle: `pnpm mutate:effects` (docs/testing.md).
import { mutationOptions } from "./stryker.config.mjs"

export default mutationOptions("effects", "packages/effects", [
  "packages/effects/src/Start*.ts",
  "packages/effects/src/lifecycle/**/*.ts",
  "!packages/effects/src/lifecycle/index.ts"
])
