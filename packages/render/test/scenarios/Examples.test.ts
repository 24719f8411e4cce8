import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { compareReadBack, decodeConfig, decodeStartRequest, probeRequest, renderStart } from "../../src/index.ts"

const example = (name: string): string => readFileSync(fileURLToPath(new URL(`../../../../examples/${name}`, import.meta.url)), "utf8")
const success = <A, E>(r: Result.Result<A, E>): A => {
  if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
  return r.success
}

describe("examples/", () => {
  const request = success(decodeStartRequest(JSON.parse(example("request.json"))))
  const runtime = parse(example("runtime.yaml")) as unknown
  it.each(["config.json", "config-kueue.json"])("the request and runtime render under %s, and so does the probe", (file) => {
    const config = success(decodeConfig(JSON.parse(example(file))))
    const manifests = success(renderStart(request, config, runtime))
    expect(manifests.name).toBe("dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17")
    // As stored: in Kueue mode Kueue's webhook closes the job on create.
    const stored = config.mode === "kueue" ? { ...manifests.trainJob, spec: { ...(manifests.trainJob["spec"] as object), suspend: true } } : manifests.trainJob
    expect(compareReadBack(manifests.trainJob, stored, config)).toEqual([])
    expect(Result.isSuccess(renderStart(probeRequest(config), config, runtime))).toBe(true)
  })
})
