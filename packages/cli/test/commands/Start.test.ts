// What `dispatch start` prints comes from Start's result: a retry that found its job opened must not say
// the gate is closed.
import { describe, expect, it } from "vitest"
import { startedLines } from "../../src/commands/Start.ts"

const result = { ref: "ns/dj-a-s1", namespace: "ns", name: "dj-a-s1", uid: "u-1" }

describe("dispatch start's lines", () => {
  it("a TrainJob this start created: gate closed, and how to open it with the flags the user gave", () => {
    expect(startedLines({ ...result, created: true, gateClosed: true }, ["--kubeconfig", "my config", "--config", "c.json"])).toEqual([
      "started ns/dj-a-s1 (uid u-1); its start gate is closed",
      "open it with: dispatch open dj-a-s1 --kubeconfig 'my config' --config c.json"
    ])
  })

  it("a retry that found its job still gated says it found it", () => {
    expect(startedLines({ ...result, created: false, gateClosed: true }, [])[0]).toBe(
      "found ns/dj-a-s1 (uid u-1), which an earlier start of this request created; its start gate is closed"
    )
  })

  it("a retry that found its job opened never says the gate is closed", () => {
    const lines = startedLines({ ...result, created: false, gateClosed: false }, [])
    expect(lines.join("\n")).not.toContain("gate is closed")
    expect(lines).toEqual(["found ns/dj-a-s1 (uid u-1), which an earlier start of this request created; it has already been opened"])
  })
})
