import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { LogInput, stampLog } from "../src/index.ts"

describe("log records", () => {
  it("stamps a posted record with its job and the server's time", () => {
    expect(stampLog(4, { severity: "WARNING", loggerName: "train", message: "slow" }, "2026-11-30T12:00:00.000Z")).toEqual({
      job: 4,
      severity: "WARNING",
      loggerName: "train",
      message: "slow",
      createdOn: "2026-11-30T12:00:00.000Z"
    })
  })

  it.each(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"])("accepts severity %s", (severity) => {
    expect(Result.isSuccess(Schema.decodeUnknownResult(LogInput)({ severity, loggerName: "l", message: "m" }))).toBe(true)
  })

  it.each(["info", "WARN", "FATAL", ""])("refuses severity %j", (severity) => {
    expect(Result.isFailure(Schema.decodeUnknownResult(LogInput)({ severity, loggerName: "l", message: "m" }))).toBe(true)
  })
})
