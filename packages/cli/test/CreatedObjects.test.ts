// The objects the demo shows, one line each, saying what each is to dispatch.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { readFileSync } from "node:fs"
import { decodeConfig, decodeStartRequest, renderStart } from "@dispatch/render"
import { describeObjects } from "../src/CreatedObjects.ts"
import { example } from "./DispatchBinary.ts"

const config = Result.getOrThrow(decodeConfig(JSON.parse(readFileSync(example("config.json"), "utf8"))))

const manifests = Result.getOrThrow(
  renderStart(Result.getOrThrow(decodeStartRequest(JSON.parse(readFileSync(example("request.json"), "utf8")))), config, parse(readFileSync(example("runtime.yaml"), "utf8")))
)

describe("the objects the demo shows", () => {
  it("one line each, saying what the object is to dispatch", () => {
    const owned = { ...manifests.runtimeCopy, metadata: { ...(manifests.runtimeCopy.metadata as object), ownerReferences: [{ kind: "TrainJob", name: manifests.name }] } }
    const lines = describeObjects([parse(readFileSync(example("runtime.yaml"), "utf8")), owned, manifests.trainJob], config)
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^TrainingRuntime ml-team\/dispatch-torch +the runtime the cluster offers/)
    expect(lines[1]).toContain(`dispatch's private copy of TrainingRuntime/dispatch-torch, owned by TrainJob ${manifests.name}`)
    expect(lines[2]).toMatch(/^TrainJob ml-team\/dj-.* +job 01JD8X2Q4M7N9P3R5S6T8V0W1Y submission 17, image registry\.example\.com\/ml\/resnet:1\.4\.2, 2 node\(s\) x 4 nvidia\.com\/gpu/)
    // Created suspended, the TrainJob is held until dispatch releases it.
    expect(lines[2]).toMatch(/, state Suspended$/)
  })
})
