// What a Start that ends in an error leaves on the cluster. A copy an earlier attempt left is deleted once
// this attempt is refused (nothing will run on it), kept after a passing failure (the retry reuses it),
// and kept while a TrainJob of its name is there. Checked against what the simulator stores.
import { describe, expect, it } from "vitest"
import type { KubeObject } from "@dispatch/sim"
import { isPassing } from "../src/StartErrors.ts"
import { RETRY_POLICY } from "../src/RetryPolicy.ts"
import { backendOf, configOf, errorOf, intercepted, namespace, type RecordedSim, requestOf, runStart, simOf, stored, trainJobNameOf, valueOf } from "./StartFixture.ts"

const open = backendOf(configOf("plain"))
const name1 = trainJobNameOf(1)
const copyOf = (recorded: RecordedSim): KubeObject | undefined => recorded.sim.system.get("trainingruntimes", namespace, name1)

describe("Start leaves no runtime copy behind a refusal", () => {
  it("attempt 1's copy create lands unanswered; attempt 2 reuses the copy and its TrainJob create is refused 422: the copy is deleted", async () => {
    const recorded = simOf({
      faults: [
        { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
        { verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 422, message: "spec.trainer: invalid" } }
      ]
    })
    const first = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(isPassing(first)).toBe(true)
    expect(copyOf(recorded)).toBeDefined()
    const second = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(second._tag).toBe("ErrRejected")
    expect(second).toMatchObject({ cause: { kind: "Refused", reason: "Invalid", code: 422 } })
    expect(second.reasons.join(" ")).toContain("spec.trainer: invalid")
    expect(copyOf(recorded)).toBeUndefined()
    expect(stored(recorded, "trainjobs")).toEqual([])
  })

  it("a reused copy is kept after a passing failure of the TrainJob create, and the next attempt starts the job on it", async () => {
    const recorded = simOf({
      faults: [
        { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
        { verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 503 } }
      ]
    })
    errorOf(await runStart(recorded, open, requestOf(1)))
    const uid = copyOf(recorded)?.metadata?.["uid"]
    const second = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(isPassing(second)).toBe(true)
    expect(copyOf(recorded)?.metadata?.["uid"]).toBe(uid)
    const result = valueOf(await runStart(recorded, open, requestOf(1)))
    expect(stored(recorded, "trainjobs").map((j) => j.metadata?.["uid"])).toEqual([result.uid])
    expect(copyOf(recorded)?.metadata?.["uid"]).toBe(uid)
  })

  it("a reused copy is kept after a refusal while a TrainJob of its name is there", async () => {
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } }] })
    errorOf(await runStart(recorded, open, requestOf(1)))
    // The TrainJob create is refused, but a TrainJob of the name (another writer's) is there by then.
    const refusing = intercepted(recorded, (request, next) => {
      if (request.verb !== "create" || request.resource !== "trainjobs") return next(request)
      recorded.sim.system.create("trainjobs", { ...(request.body as KubeObject), metadata: { name: name1, namespace } })
      return { kind: "answered", response: { code: 422, body: { kind: "Status", code: 422, reason: "Invalid", message: "refused" } } }
    })
    const error = errorOf(await runStart(refusing, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(copyOf(recorded)).toBeDefined()
  })

  it("a reused copy whose delete fails every try is reported, retryable: the next attempt deletes it", async () => {
    const recorded = simOf({
      faults: [
        { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
        { verb: "create", resource: "trainjobs", action: { type: "status", code: 422 } },
        { verb: "delete", resource: "trainingruntimes", nth: 1, times: RETRY_POLICY.tries, action: { type: "status", code: 503 } }
      ]
    })
    errorOf(await runStart(recorded, open, requestOf(1)))
    const second = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(second._tag).toBe("ErrUnreachable")
    expect(second.reasons.join(" ")).toContain("the runtime copy could not be deleted")
    expect(copyOf(recorded)).toBeDefined()
    const third = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(third._tag).toBe("ErrRejected")
    expect(copyOf(recorded)).toBeUndefined()
  })

  it("a reused copy whose TrainJob cannot be read after the refusal is kept and reported, retryable", async () => {
    const recorded = simOf({
      faults: [
        { verb: "create", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
        { verb: "create", resource: "trainjobs", nth: 1, action: { type: "status", code: 422 } },
        { verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 403, message: "no reading trainjobs" } }
      ]
    })
    errorOf(await runStart(recorded, open, requestOf(1)))
    const second = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(second._tag).toBe("ErrUnreachable")
    expect(second.reasons.at(-1)).toContain("the runtime copy could not be deleted: ")
    expect(second.reasons.at(-1)).toContain("no reading trainjobs")
    expect(copyOf(recorded)).toBeDefined()
  })
})
