// The real kubectl explain, reading each CRD's OpenAPI v3 schema from the simulator.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Served, serve } from "../../HttpFixture.ts"
import { kubectl, ok } from "./KubectlFixture.ts"

// The FIELDS section of `kubectl explain`: each field's name and its type.
const fieldsOf = (out: string): ReadonlyArray<string> =>
  [...out.slice(out.indexOf("FIELDS:")).matchAll(/^ {2}(\S+)\t<([^>]+)>/gm)].map((m) => `${m[1]} <${m[2]}>`)

describe("kubectl explain", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve()
  })
  afterAll(() => served.close())

  it("explains a TrainJob's trainer field by field", async () => {
    const out = ok(await kubectl(served, "explain", "trainjob.spec.trainer"))
    expect(out).toContain("KIND:       TrainJob")
    expect(out).toContain("The container image of the trainer's node container.")
    expect(fieldsOf(out)).toEqual([
      "args <[]string>",
      "command <[]string>",
      "env <[]Object>",
      "image <string>",
      "numNodes <integer>",
      "numProcPerNode <integer>",
      "resourcesPerNode <Object>"
    ])
    expect(fieldsOf(ok(await kubectl(served, "explain", "trainjob.spec.trainer.resourcesPerNode")))).toContain("limits <map[string]Quantity>")
    expect(ok(await kubectl(served, "explain", "trainjob.metadata"))).toContain("labels\t<map[string]string>")
  })

  it.each([
    ["clustertrainingruntime.spec.mlPolicy", "torch <Object>"],
    ["jobset.spec.replicatedJobs", "replicas <integer>"],
    ["jobset.status", "terminalState <string>"],
    ["workload.spec.podSets", "count <integer>"],
    ["localqueue.spec", "clusterQueue <string>"],
    ["clusterqueue.spec.resourceGroups.flavors.resources", "nominalQuota <Quantity>"]
  ])("explains %s", async (path, field) => {
    expect(fieldsOf(ok(await kubectl(served, "explain", path)))).toContain(field)
  })

  it("refuses a queue field explain does not show, as the same tree prunes writes", async () => {
    const manifest = join(served.dir, "queue.yaml")
    writeFileSync(manifest, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: q\nspec:\n  clusterQueue: cq\n  cluster: cq\n")
    const run = await kubectl(served, "create", "-f", manifest)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(`unknown field "spec.cluster"`)
    expect(served.simulator.system.get("localqueues", "default", "q")).toBeUndefined()
  })

  it("names a field no schema has", async () => {
    const run = await kubectl(served, "explain", "trainjob.spec.bogus")
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(`field "bogus" does not exist`)
  })
})
