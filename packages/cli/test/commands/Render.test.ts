// How `dispatch render` prints the two objects: YAML documents, or one JSON object.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { parse, parseAllDocuments } from "yaml"
import { readFileSync } from "node:fs"
import { decodeConfig, decodeStartRequest, renderStart } from "@dispatch/render"
import { formatManifests } from "../../src/commands/Render.ts"
import { example } from "../DispatchBinary.ts"

const config = Result.getOrThrow(decodeConfig(JSON.parse(readFileSync(example("config.json"), "utf8"))))

const manifests = Result.getOrThrow(
  renderStart(Result.getOrThrow(decodeStartRequest(JSON.parse(readFileSync(example("request.json"), "utf8")))), config, parse(readFileSync(example("runtime.yaml"), "utf8")))
)

describe("render output", () => {
  it("YAML is the two objects as two documents, JSON the object {runtimeCopy, trainJob}", () => {
    expect(parseAllDocuments(formatManifests(manifests, "yaml")).map((d) => d.toJS() as unknown)).toEqual([manifests.runtimeCopy, manifests.trainJob])
    expect(JSON.parse(formatManifests(manifests, "json"))).toEqual({ runtimeCopy: manifests.runtimeCopy, trainJob: manifests.trainJob })
  })
})
