// The lifecycle reads objects as the API server returns them, where any field may be missing or of the
// wrong type: every read is total and never mistakes a wrong type for a value.
import { describe, expect, it } from "vitest"
import { arrayAt, conditionOf, isTrue, recordAt, stringAt, valueAt } from "../../src/lifecycle/ObjectFields.ts"

describe("ObjectFields", () => {
  const object = { metadata: { name: "x", labels: { a: "1" }, finalizers: ["f"] }, spec: { suspend: false, list: [1] }, status: null }

  it("recordAt follows only objects: an array, null or a scalar on the way, or at the end, is undefined", () => {
    expect(recordAt(object, ["metadata", "labels"])).toEqual({ a: "1" })
    expect(recordAt(object, [])).toBe(object)
    expect(recordAt(object, ["metadata", "finalizers"])).toBeUndefined()
    expect(recordAt(object, ["status"])).toBeUndefined()
    expect(recordAt(object, ["status", "conditions"])).toBeUndefined()
    expect(recordAt(object, ["spec", "list", "0"])).toBeUndefined()
    expect(recordAt(object, ["metadata", "name"])).toBeUndefined()
    expect(recordAt(undefined, [])).toBeUndefined()
    expect(recordAt([], [])).toBeUndefined()
  })

  it("valueAt reads any value, keeps false, and is undefined for an empty path", () => {
    expect(valueAt(object, ["spec", "suspend"])).toBe(false)
    expect(valueAt(object, ["spec", "list"])).toEqual([1])
    expect(valueAt(object, ["spec", "missing"])).toBeUndefined()
    expect(valueAt(object, [])).toBeUndefined()
    // Not even from an object with a key named "undefined", which indexing by a missing last key would read.
    expect(valueAt({ undefined: "found" }, [])).toBeUndefined()
  })

  it("stringAt and arrayAt refuse other types", () => {
    expect(stringAt(object, ["metadata", "name"])).toBe("x")
    expect(stringAt(object, ["spec", "suspend"])).toBeUndefined()
    expect(arrayAt(object, ["metadata", "finalizers"])).toEqual(["f"])
    expect(arrayAt(object, ["metadata", "labels"])).toEqual([])
  })

  it("conditionOf finds a condition by type, with empty strings for missing fields; isTrue wants status True", () => {
    const job = { status: { conditions: [{ type: "Complete" }, { type: "Failed", status: "True", reason: "DeadlineExceeded", message: "too long" }, "junk"] } }
    expect(conditionOf(job, "Complete")).toEqual({ status: "", reason: "", message: "" })
    expect(conditionOf(job, "Failed")).toEqual({ status: "True", reason: "DeadlineExceeded", message: "too long" })
    expect(conditionOf(job, "Suspended")).toBeUndefined()
    expect(isTrue(job, "Failed")).toBe(true)
    expect(isTrue(job, "Complete")).toBe(false)
    expect(isTrue(job, "Suspended")).toBe(false)
  })
})
