// Where a request path points in the Kubernetes REST layout: the discovery and OpenAPI documents, or
// one of the served resources (a collection, an object, or an object's status). Methods and query
// parameters are read elsewhere; this only names the target.
import type { Resource } from "../Api.ts"
import type { Kind } from "../kinds/Kind.ts"
import type { KindRegistry } from "../kinds/KindRegistry.ts"
import { type SelfReviewKind, reviewGroupVersion, servedReviews } from "../apiserver/SelfReview.ts"

/** The target of a request path. */
export type Route =
  | { readonly kind: "version" }
  | { readonly kind: "coreVersions" }
  | { readonly kind: "groups" }
  | { readonly kind: "resourceList"; readonly group: string; readonly version: string }
  | { readonly kind: "openapiRoot" }
  | { readonly kind: "openapiGroupVersion"; readonly group: string; readonly version: string }
  | { readonly kind: "openapiV2" }
  | { readonly kind: "review"; readonly review: SelfReviewKind }
  | {
      readonly kind: "resource"
      readonly resource: Kind
      readonly version: string
      readonly namespace?: string
      readonly name?: string
      readonly subresource?: "status" | "log" | "token"
    }
  | { readonly kind: "notFound" }

const notFound: Route = { kind: "notFound" }

/** True when RBAC's API is served (and so SubjectAccessReview, which only RBAC answers). */
export const servesRbac = (kinds: KindRegistry): boolean => kinds.servesGroupVersion("rbac.authorization.k8s.io", "v1")

/** True when the resource is served at that group and version. */
export const serves = (resource: Resource, group: string, version: string): boolean =>
  resource.group === group && resource.versions.includes(version)

// The segments after /api/v1 or /apis/{group}/{version}:
//   {plural}[/{name}[/status]]  or  namespaces/{ns}/{plural}[/{name}[/status]]
const resourceRoute = (kinds: KindRegistry, group: string, version: string, rest: ReadonlyArray<string>): Route => {
  const find = (plural: string | undefined): Kind | undefined => (plural === undefined ? undefined : kinds.servedAt(group, version, plural))
  const namespacedForm = rest[0] === "namespaces" && rest.length >= 3 && find(rest[2])?.namespaced === true
  if (namespacedForm) {
    const [, namespace, plural, name, sub, ...extra] = rest
    const resource = find(plural)
    if (resource === undefined || namespace === undefined || extra.length > 0) return notFound
    return withObject(resource, version, namespace, name, sub)
  }
  const [plural, name, sub, ...extra] = rest
  const resource = find(plural)
  if (resource === undefined || extra.length > 0) return notFound
  // A namespaced resource without a namespace is only a cross-namespace collection.
  if (resource.namespaced && name !== undefined) return notFound
  return withObject(resource, version, undefined, name, sub)
}

const withObject = (
  resource: Kind,
  version: string,
  namespace: string | undefined,
  name: string | undefined,
  sub: string | undefined
): Route => {
  if (namespace === "" || name === "") return notFound
  const served =
    sub === undefined ||
    (sub === "status" && resource.hasStatus) ||
    (sub === "log" && resource.plural === "pods" && name !== undefined) ||
    (sub === "token" && resource.plural === "serviceaccounts" && name !== undefined)
  if (!served) return notFound
  return {
    kind: "resource",
    resource,
    version,
    ...(namespace === undefined ? {} : { namespace }),
    ...(name === undefined ? {} : { name }),
    ...(sub === "status" || sub === "log" || sub === "token" ? { subresource: sub } : {})
  }
}

/**
 * The path and query of a request target: the origin form (`/path?query`) or the absolute form a
 * proxy sends (`http://host/path?query`). Anything else is kept as a path, which names nothing.
 */
export const splitTarget = (target: string): { readonly path: string; readonly query: URLSearchParams } => {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(target)
  const rest = authority === null ? target : target.slice(authority[0].length)
  const end = rest.indexOf("#")
  const withoutFragment = end < 0 ? rest : rest.slice(0, end)
  const q = withoutFragment.indexOf("?")
  const path = q < 0 ? withoutFragment : withoutFragment.slice(0, q)
  return { path: path === "" ? "/" : path, query: new URLSearchParams(q < 0 ? "" : withoutFragment.slice(q + 1)) }
}

/** Names the target of a URL path (without its query string), among the kinds served. */
export const routeOf = (kinds: KindRegistry, path: string): Route => {
  const servesGroupVersion = (group: string, version: string): boolean => kinds.servesGroupVersion(group, version)
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path
  const segments = trimmed.split("/").slice(1).map(decodeSegment)
  if (segments.some((s) => s === undefined)) return notFound
  const parts = segments as ReadonlyArray<string>
  const [first, second, third, ...rest] = parts
  switch (first) {
    case "version":
      return parts.length === 1 ? { kind: "version" } : notFound
    case "api":
      if (second === undefined) return { kind: "coreVersions" }
      if (!servesGroupVersion("", second)) return notFound
      if (third === undefined) return { kind: "resourceList", group: "", version: second }
      return resourceRoute(kinds, "", second, [third, ...rest])
    case "apis": {
      if (second === undefined) return { kind: "groups" }
      if (`${second}/${third}` === reviewGroupVersion) {
        const review = servedReviews(servesRbac(kinds)).find((r) => rest.length === 1 && r.plural === rest[0])
        if (rest.length === 0) return { kind: "resourceList", group: second, version: third ?? "" }
        return review === undefined ? notFound : { kind: "review", review: review.kind as SelfReviewKind }
      }
      if (third === undefined || !servesGroupVersion(second, third)) return notFound
      if (rest.length === 0) return { kind: "resourceList", group: second, version: third }
      return resourceRoute(kinds, second, third, rest)
    }
    case "openapi":
      if (second === "v2" && third === undefined) return { kind: "openapiV2" }
      if (second !== "v3") return notFound
      if (third === undefined) return { kind: "openapiRoot" }
      if (third === "api" && rest.length === 1 && servesGroupVersion("", rest[0] ?? "")) {
        return { kind: "openapiGroupVersion", group: "", version: rest[0] ?? "" }
      }
      if (third === "apis" && rest.length === 2 && servesGroupVersion(rest[0] ?? "", rest[1] ?? "")) {
        return { kind: "openapiGroupVersion", group: rest[0] ?? "", version: rest[1] ?? "" }
      }
      return notFound
    default:
      return notFound
  }
}

const decodeSegment = (segment: string): string | undefined => {
  // Only an escape changes a segment (or makes it malformed): most have none, and decoding costs.
  if (!segment.includes("%")) return segment
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
