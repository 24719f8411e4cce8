// The vitest config for effects' mutation runs (stryker.effects.config.mjs): the render runs' config
// without the whole-flow tests. The Start campaign and the lifecycle scenarios cover almost every line of
// Start and the lifecycle, so each mutant would rerun them (tens of seconds to minutes per mutant); the
// score is measured against each module's own tests, a lower bound.
// DISPATCH_MUTATION_FLOWS=1 keeps them.
import { configDefaults, mergeConfig } from "vitest/config"
import base from "./stryker.vitest.config.ts"

const flows = ["**/test/scenarios/StartCampaign.test.ts", "**/test/scenarios/lifecycle/InProcess.test.ts", "**/test/scenarios/lifecycle/Http.test.ts", "**/test/scenarios/lifecycle/ErrorTable.test.ts"]

export default process.env["DISPATCH_MUTATION_FLOWS"] === "1" ? base : mergeConfig(base, { test: { exclude: [...configDefaults.exclude, ...flows] } })
