// @ts-check
// Mutation testing for the CLI's reading of its command declarations: `npx stryker run stryker.cli.config.mjs`.
import { mutationOptions } from "./stryker.config.mjs"

const options = mutationOptions("cli", "packages/cli", ["packages/cli/src/FlagReader.ts", "packages/cli/src/FlagFacts.ts", "packages/cli/src/Usage.ts"])

export default { ...options, vitest: { ...options.vitest, configFile: "stryker.cli.vitest.config.ts" } }
