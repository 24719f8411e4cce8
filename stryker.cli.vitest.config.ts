// The vitest config for mutation runs of the CLI's command declarations (stryker.cli.config.mjs): the
// mutation config, narrowed to the unit tests of what is read off the declarations, so that a mutant
// does not rerun the end-to-end suites that load every command.
import { mergeConfig } from "vitest/config"
import base from "./stryker.vitest.config.ts"

export default mergeConfig(base, {
  test: {
    include: [
      "packages/cli/test/FlagReader.test.ts",
      "packages/cli/test/KubectlArgv.test.ts",
      "packages/cli/test/FlagFacts.test.ts",
      "packages/cli/test/Usage.test.ts",
      "packages/cli/test/Cli.test.ts",
      "packages/cli/test/SimServeArgs.test.ts",
      "packages/cli/test/ServeArgs.test.ts"
    ]
  }
})
