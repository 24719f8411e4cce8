import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { ErrorKinds } from "@dispatch/render"
import { ExitCode, exitCodeOf } from "../src/ExitCode.ts"
import { exitCodeOfFailure, failed, refused, usage } from "../src/Failure.ts"
import { errorMeaning, failureJson, failureLines } from "../src/Report.ts"

describe("exit codes", () => {
  it("are distinct: 0 ok, 1 other, 2 usage, then one per error kind", () => {
    const codes = Object.values(ExitCode)
    expect(new Set(codes).size).toBe(codes.length)
    expect([ExitCode.ok, ExitCode.failure, ExitCode.usage]).toEqual([0, 1, 2])
    expect(ErrorKinds.map(exitCodeOf)).toEqual([3, 4, 5, 6, 7, 8])
  })

  test.prop([fc.constantFrom(...ErrorKinds), fc.array(fc.string(), { maxLength: 5 })])("a refusal exits with its kind's code and prints every reason", (kind, reasons) => {
    const failure = refused(kind, reasons)
    expect(exitCodeOfFailure(failure)).toBe(exitCodeOf(kind))
    const lines = failureLines("start", failure)
    expect(lines[0]).toBe(`dispatch start: ${kind}: ${errorMeaning("start", kind)}`)
    expect(lines.slice(1)).toEqual(reasons.map((r) => `  - ${r}`))
    expect(JSON.parse(failureJson(failure) ?? "null")).toEqual({ error: kind, reasons })
  })

  it("usage and other failures exit 2 and 1, print their problems, and no JSON", () => {
    expect(exitCodeOfFailure(usage(["x"], "usage: dispatch y"))).toBe(2)
    expect(failureLines("y", usage(["x"], "usage: dispatch y"))).toEqual(["dispatch y: x", "usage: dispatch y"])
    expect(exitCodeOfFailure(failed(["z"]))).toBe(1)
    expect(failureJson(failed(["z"]))).toBeUndefined()
    expect(failureJson({ _tag: "Refused", error: "ErrReadOnly", reasons: ["r"], reported: true })).toBeUndefined()
  })

  test.prop([fc.constantFrom("open", "hold", "release", "stop", "find", "probe", "capabilities", "render"), fc.constantFrom(...ErrorKinds)])(
    "only start and demo speak of what Start did; an invalid input is never called a request",
    (command, kind) => {
      const line = failureLines(command, refused(kind, ["r"]))[0] ?? ""
      expect(line).not.toMatch(/Start created|nothing was started/)
      expect(line).not.toContain("request")
    }
  )

  it("names the object a refusal is about", () => {
    expect(failureLines("open", refused("ErrRejected", [], { namespace: "ns", name: "n", uid: "u" }))[0]).toContain("(ns/n, uid u)")
  })
})
