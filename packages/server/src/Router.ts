import { Result } from "effect"
import type { Method, Route } from "./Route.ts"
import { MethodNotAllowed, RouteNotFound } from "./ServiceProblem.ts"

/** A route that matched a request, with the path parameters it captured (still strings). */
export interface Matched {
  readonly route: Route
  readonly params: Readonly<Record<string, string>>
}

const segments = (path: string): ReadonlyArray<string> => path.split("/").filter((s) => s !== "")

const placeholder = /^\{([A-Za-z][A-Za-z0-9]*)\}$/

/** Matches a path against a template like `/jobs/{id}/log`; the captured values are URI-decoded. */
export const matchTemplate = (template: string, path: string): Readonly<Record<string, string>> | undefined => {
  const want = segments(template)
  const got = segments(path)
  if (want.length !== got.length) return undefined
  const params: Record<string, string> = {}
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? ""
    const name = placeholder.exec(part)?.[1]
    if (name === undefined) {
      if (part !== value) return undefined
      continue
    }
    try {
      params[name] = decodeURIComponent(value)
    } catch {
      return undefined
    }
  }
  return params
}

/** Finds the route for a method and path: 404 when no template matches the path, 405 when only other methods do. */
export const findRoute = (routes: ReadonlyArray<Route>, method: string, path: string): Result.Result<Matched, RouteNotFound | MethodNotAllowed> => {
  const candidates = routes.flatMap((route) => {
    const params = matchTemplate(route.path, path)
    return params === undefined ? [] : [{ route, params }]
  })
  const hit = candidates.find((c) => c.route.method === (method as Method))
  if (hit !== undefined) return Result.succeed(hit)
  if (candidates.length === 0) return Result.fail(new RouteNotFound({ path }))
  return Result.fail(new MethodNotAllowed({ method, path, allowed: candidates.map((c) => c.route.method) }))
}
