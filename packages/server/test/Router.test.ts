import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { expect } from "vitest"
import { findRoute, matchTemplate } from "../src/http/Router.ts"
import { routes } from "../src/Serve.ts"

const segment = fc.string({ minLength: 1, maxLength: 12 })

test.prop([segment, segment])("a template captures each placeholder's value, URI-decoded", (id, name) => {
  const path = `/jobs/${encodeURIComponent(id)}/metrics/${encodeURIComponent(name)}/snapshots`
  expect(matchTemplate("/jobs/{id}/metrics/{name}/snapshots", path)).toEqual({ id, name })
})

test.prop([fc.array(segment.filter((s) => !s.includes("/")), { maxLength: 5 })])("a template never matches a path with a different number of segments", (parts) => {
  const path = `/${parts.map(encodeURIComponent).join("/")}`
  const template = `/${[...parts.map(() => "{x}"), "{y}"].join("/")}`
  expect(matchTemplate(template, path)).toBeUndefined()
})

test("every route is found by its own method and path, and no two routes share both", () => {
  for (const route of routes) {
    const found = findRoute(routes, route.method, route.path.replace(/\{[A-Za-z]+\}/g, "7"))
    expect(Result.isSuccess(found) && found.success.route).toBe(route)
  }
  expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(routes.length)
})

test("a path no template matches is 404; a path matched only by other methods is 405 naming them", () => {
  const missing = findRoute(routes, "GET", "/jobs/1/nothing")
  expect(Result.isFailure(missing) && missing.failure._tag).toBe("RouteNotFound")
  const wrong = findRoute(routes, "PATCH", "/jobs/1")
  expect(Result.isFailure(wrong) && wrong.failure).toMatchObject({ _tag: "MethodNotAllowed", allowed: ["GET", "DELETE"] })
  expect(matchTemplate("/jobs/{id}", "/jobs/%E0%A4%A")).toBeUndefined()
})

test.prop([fc.oneof(fc.constantFrom("0x10", "1.0", "1e0", " 1", "+1", "01", "0", "-1", "2147483648", "9007199254740991"), fc.string({ minLength: 1 }))])(
  "the router places a path however its id is spelled; the service then judges the id (400 or 404, see BadInput.test.ts)",
  (text) => {
    const found = findRoute(routes, "GET", `/jobs/${encodeURIComponent(text)}/status`)
    expect(Result.isSuccess(found) && found.success.params).toEqual({ id: text })
  }
)
