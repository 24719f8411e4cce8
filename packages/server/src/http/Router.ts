import { Result } from "effect"
import type { Method, Route } from "./Route.ts"
import { MethodNotAllowed, RouteNotFound } from "../wire/ServiceProblem.ts"

/** A route that matched a request, with the path parameters it captured (still strings). */
export interface Matched {
  readonly route: Route
  readonly params: Readonly<Record<string, string>>
}

const segments = (path: string): ReadonlyArray<string> => path.split("/").filter((s) => s !== "")

const placeholder = /^\{([A-Za-z][A-Za-z0-9]*)\}$/

/** One segment of a path template: a literal, or a named parameter. */
type TemplatePart = { readonly literal: string; readonly param?: undefined } | { readonly param: string }

// Templates are the routes' own, a fixed few: each is split once, not at every request it is tried against.
const parsedTemplates = new Map<string, ReadonlyArray<TemplatePart>>()

const templateParts = (template: string): ReadonlyArray<TemplatePart> => {
  const known = parsedTemplates.get(template)
  if (known !== undefined) return known
  const parts = segments(template).map((part): TemplatePart => {
    const name = placeholder.exec(part)?.[1]
    return name === undefined ? { literal: part } : { param: name }
  })
  parsedTemplates.set(template, parts)
  return parts
}

const matchParts = (want: ReadonlyArray<TemplatePart>, got: ReadonlyArray<string>): Readonly<Record<string, string>> | undefined => {
  if (want.length !== got.length) return undefined
  const params: Record<string, string> = {}
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? ""
    if (part.param === undefined) {
      if (part.literal !== value) return undefined
      continue
    }
    try {
      params[part.param] = decodeURIComponent(value)
    } catch {
      return undefined
    }
  }
  return params
}

/** Matches a path against a template like `/jobs/{id}/log`; the captured values are URI-decoded. */
export const matchTemplate = (template: string, path: string): Readonly<Record<string, string>> | undefined => matchParts(templateParts(template), segments(path))

/** Finds the route for a method and path: 404 when no template matches the path, 405 when only other methods do. */
export const findRoute = (routes: ReadonlyArray<Route>, method: string, path: string): Result.Result<Matched, RouteNotFound | MethodNotAllowed> => {
  const got = segments(path)
  const candidates = routes.flatMap((route) => {
    const params = matchParts(templateParts(route.path), got)
    return params === undefined ? [] : [{ route, params }]
  })
  const hit = candidates.find((c) => c.route.method === (method as Method))
  if (hit !== undefined) return Result.succeed(hit)
  if (candidates.length === 0) return Result.fail(new RouteNotFound({ path }))
  return Result.fail(new MethodNotAllowed({ method, path, allowed: candidates.map((c) => c.route.method) }))
}
