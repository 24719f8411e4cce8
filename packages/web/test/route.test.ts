// The page a location hash names, and back.
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseRoute, routeHash, type Route } from "../app/route.ts"

const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })
const route: fc.Arbitrary<Route> = fc.oneof(
  fc.constantFrom<Route>({ page: "login" }, { page: "experiments" }, { page: "jobs" }, { page: "queues" }),
  id.map((n): Route => ({ page: "experiment", id: n })),
  id.map((n): Route => ({ page: "job", id: n }))
)

describe("routes", () => {
  propTest.prop([route])("a page's hash names that page again", (r) => {
    expect(parseRoute(routeHash(r))).toEqual(r)
  })

  propTest.prop([fc.string()])("any hash names some page, and an unknown one keeps the hash it came from", (hash) => {
    const r = parseRoute(hash)
    if (r.page === "notFound") expect(r.hash).toBe(hash)
    else expect(parseRoute(routeHash(r))).toEqual(r)
  })

  it("reads the forms people type and link", () => {
    expect(parseRoute("")).toEqual({ page: "experiments" })
    expect(parseRoute("#/")).toEqual({ page: "experiments" })
    expect(parseRoute("#/jobs/12")).toEqual({ page: "job", id: 12 })
    expect(parseRoute("#/jobs/12/")).toEqual({ page: "job", id: 12 })
    expect(parseRoute("#experiments/3")).toEqual({ page: "experiment", id: 3 })
    expect(parseRoute("#/queues")).toEqual({ page: "queues" })
  })

  it("refuses ids no resource has: zero, leading zeros, signs, fractions, past the safe integers", () => {
    for (const hash of ["#/jobs/0", "#/jobs/012", "#/jobs/-1", "#/jobs/1.5", "#/jobs/1e3", "#/jobs/99999999999999999", "#/jobs/x", "#/jobs/1/log", "#/nope"]) {
      expect(parseRoute(hash), hash).toEqual({ page: "notFound", hash })
    }
  })
})
