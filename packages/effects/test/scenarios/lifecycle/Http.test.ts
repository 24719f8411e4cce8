// Issue 5's scenarios through KubeCluster (client-node) against the HTTP simulator, on real time with
// short timeouts. Each scenario has its own server and mostly waits, so they run concurrently.
import { describe, it } from "vitest"
import { overHttp } from "../../lifecycle/LifecycleFixture.ts"
import { scenarios } from "./Scenarios.ts"

describe.concurrent(`lifecycle scenarios: ${overHttp.name}`, () => {
  for (const scenario of scenarios) it(scenario.name, () => scenario.run(overHttp))
})
