// The real process's CliIo: what it attaches to the process must not grow with each CliIo made.
import { expect, it } from "vitest"
import { processIo } from "../src/ProcessIo.ts"

it("guards stdout against a closed reader once, however many CliIos a program makes", () => {
  const before = process.stdout.listenerCount("error")
  for (let i = 0; i < 12; i++) processIo()
  expect(process.stdout.listenerCount("error")).toBeLessThanOrEqual(before + 1)
  expect(process.stdout.listenerCount("error")).toBeGreaterThanOrEqual(1)
})
