// Issue 5's scenarios on the in-process simulator, with TestClock driving every wait.
import { describe, it } from "vitest"
import { inProcess } from "../../lifecycle/LifecycleFixture.ts"
import { scenarios } from "./Scenarios.ts"

describe(`lifecycle scenarios: ${inProcess.name}`, () => {
  for (const scenario of scenarios) it(scenario.name, () => scenario.run(inProcess))
})
