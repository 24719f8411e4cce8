// A reporter's settings from its options and its pod's environment: where it posts, whether its rank reports, and
// limits kept within what the service takes.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { rankOf, settingsOf } from "../src/Settings.ts"

const job = { DIOPTRA_SERVICE_URL: "http://dispatch.example:8080/api/v1/", DIOPTRA_JOB_ID: "42", DIOPTRA_REPORT_TOKEN: "djr1.42.abc" }

describe("settingsOf", () => {
  it("posts to the job's batch endpoint under the service's base path, with the job's token", () => {
    const settings = settingsOf({}, job)
    expect("url" in settings.target && [settings.target.url.href, settings.target.token]).toEqual(["http://dispatch.example:8080/api/v1/jobs/42/reports", "djr1.42.abc"])
    expect(settingsOf({ url: "https://h/x?y=1#z", jobId: "a/b", token: "t" }, {}).target).toEqual({ url: new URL("https://h/x/jobs/a%2Fb/reports"), token: "t" })
  })

  it("is off, saying why, without the three variables or with a URL that is not http(s); quietly on a rank that does not report", () => {
    for (const missing of ["DIOPTRA_SERVICE_URL", "DIOPTRA_JOB_ID", "DIOPTRA_REPORT_TOKEN"]) {
      expect(settingsOf({}, { ...job, [missing]: "" }).target).toEqual({ off: "DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID and DIOPTRA_REPORT_TOKEN are not all set; reporting is off", quiet: false })
    }
    expect(settingsOf({}, { ...job, DIOPTRA_SERVICE_URL: "ftp://x/" }).target).toEqual({ off: 'DIOPTRA_SERVICE_URL "ftp://x/" is not an http(s) URL; reporting is off', quiet: false })
    expect(settingsOf({}, { ...job, DIOPTRA_SERVICE_URL: "not a url" }).target).toMatchObject({ quiet: false })
    expect(settingsOf({}, { ...job, RANK: "1" }).target).toEqual({ off: "rank 1 does not report (only rank 0 does unless allRanks)", quiet: true })
    expect("url" in settingsOf({}, { ...job, RANK: "1", DISPATCH_REPORT_ALL_RANKS: "1" }).target).toBe(true)
    expect("url" in settingsOf({ allRanks: true }, { ...job, PET_NODE_RANK: "3" }).target).toBe(true)
    expect("url" in settingsOf({ allRanks: false }, { ...job, PET_NODE_RANK: "3", DISPATCH_REPORT_ALL_RANKS: "yes" }).target).toBe(false)
    // Options win over the environment, which `env` replaces.
    expect("url" in settingsOf({ env: {} }, job).target).toBe(false)
  })

  it("says which is missing the same way whether a variable is unset or empty, and trims only trailing slashes of the base", () => {
    for (const missing of ["DIOPTRA_SERVICE_URL", "DIOPTRA_JOB_ID", "DIOPTRA_REPORT_TOKEN"]) {
      const { [missing]: _, ...rest } = job as Record<string, string>
      expect(settingsOf({}, rest).target).toEqual({ off: "DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID and DIOPTRA_REPORT_TOKEN are not all set; reporting is off", quiet: false })
    }
    const target = settingsOf({ url: "http://h/api//" }, job).target
    expect("url" in target && target.url.pathname).toBe("/api/jobs/42/reports")
    for (const yes of ["1", "true", "True", "yes"]) expect("url" in settingsOf({}, { ...job, RANK: "1", DISPATCH_REPORT_ALL_RANKS: yes }).target, yes).toBe(true)
    for (const no of ["0", "false", "no", ""]) expect("url" in settingsOf({}, { ...job, RANK: "1", DISPATCH_REPORT_ALL_RANKS: no }).target, no).toBe(false)
  })

  it("caps the timers at the largest delay Node's timers take", () => {
    const huge = 1e12
    const s = settingsOf({ intervalMs: huge, timeoutMs: huge, backoffMs: huge, maxBackoffMs: huge, exitTimeoutMs: huge }, job)
    expect([s.intervalMs, s.timeoutMs, s.backoffMs, s.maxBackoffMs, s.exitTimeoutMs]).toEqual(Array.from({ length: 5 }, () => 2 ** 31 - 1))
  })

  it("reads the rank from RANK (torchrun), else PET_NODE_RANK (Trainer), else 0", () => {
    expect(rankOf({ RANK: "12" })).toBe(12)
    expect(rankOf({})).toBe(0)
    expect(rankOf({ RANK: "2", PET_NODE_RANK: "5" })).toBe(2)
    expect(rankOf({ RANK: "x", PET_NODE_RANK: " 5 " })).toBe(5)
    expect(rankOf({ RANK: "-1" })).toBe(-1)
    expect(rankOf({ RANK: "1.5" })).toBe(0)
  })

  it("has the Python reporter's defaults, in milliseconds", () => {
    const { target, rank, ...limits } = settingsOf({}, job)
    expect(limits).toEqual({
      maxBuffer: 100_000,
      batchSize: 1_000,
      batchBytes: 512 * 1024,
      intervalMs: 1_000,
      timeoutMs: 10_000,
      backoffMs: 500,
      maxBackoffMs: 30_000,
      exitTimeoutMs: 5_000,
      loggerName: "train"
    })
  })

  test.prop([fc.record({ maxBuffer: fc.double(), batchSize: fc.double(), batchBytes: fc.double(), intervalMs: fc.double(), backoffMs: fc.double() }, { requiredKeys: [] })])(
    "keeps every limit within what the service takes and timers accept, whatever it is given",
    (options) => {
      const s = settingsOf(options, job)
      expect(s.maxBuffer).toBeGreaterThanOrEqual(1)
      expect(s.batchSize).toBeGreaterThanOrEqual(1)
      expect(s.batchSize).toBeLessThanOrEqual(5_000)
      expect(Number.isInteger(s.batchSize) && Number.isInteger(s.maxBuffer)).toBe(true)
      expect(s.batchBytes).toBeGreaterThanOrEqual(1024)
      expect(s.batchBytes).toBeLessThanOrEqual(1024 * 1024 - 4096)
      expect(s.intervalMs).toBeGreaterThanOrEqual(1)
      expect(s.intervalMs).toBeLessThanOrEqual(2 ** 31 - 1)
      expect(s.backoffMs).toBeGreaterThanOrEqual(0)
    }
  )
})
