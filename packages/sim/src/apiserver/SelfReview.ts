// authorization.k8s.io/v1's self reviews, answered from the simulator's token table: a
// SelfSubjectAccessReview asks whether the caller may do one thing (`kubectl auth can-i create
// trainjobs`), a SelfSubjectRulesReview lists what it may do (`kubectl auth can-i --list`). A token's
// rights are verbs on every resource; without auth everyone may do everything, as the simulator serves.
import type { ApiResponse, Resource } from "../Api.ts"
import { type AuthTokens, userFor } from "./Auth.ts"
import { invalid, pathNotFound, unauthorized } from "./StatusErrors.ts"
import { isJsonObject } from "./store/JsonValue.ts"
import { invalidValue } from "./validation/FieldErrors.ts"

/** Which review a request creates (a SubjectAccessReview only where RBAC is served). */
export type SelfReviewKind = "SelfSubjectAccessReview" | "SelfSubjectRulesReview" | "SubjectAccessReview"

/** The group/version both reviews are served at. */
export const reviewGroupVersion = "authorization.k8s.io/v1"

const review = (kind: SelfReviewKind, plural: string): Resource => ({
  group: "authorization.k8s.io",
  versions: ["v1"],
  kind,
  listKind: `${kind}List`,
  plural,
  singular: plural.slice(0, -1),
  shortNames: [],
  namespaced: false,
  hasStatus: false
})

/** The review resources: created only, never stored (so not among the stored `Resources`). */
export const reviewResources: ReadonlyArray<Resource> = [
  review("SelfSubjectAccessReview", "selfsubjectaccessreviews"),
  review("SelfSubjectRulesReview", "selfsubjectrulesreviews")
]

/** SubjectAccessReview: whether any user may do something, asked by one allowed to create it. */
export const subjectAccessReviewResource: Resource = review("SubjectAccessReview", "subjectaccessreviews")

/** The reviews served: with RBAC's API served (the simulator authorizes with RBAC), SubjectAccessReview too. */
export const servedReviews = (servesRbac: boolean): ReadonlyArray<Resource> => (servesRbac ? [...reviewResources, subjectAccessReviewResource] : reviewResources)

const rightsOf = (auth: AuthTokens | undefined, token: string | undefined): ReadonlyArray<string> | "*" | undefined => {
  if (auth === undefined) return "*"
  if (token === undefined || !Object.hasOwn(auth.tokens, token)) return undefined
  return auth.tokens[token]
}

const who = (auth: AuthTokens | undefined, token: string | undefined): string =>
  auth === undefined || token === undefined ? "every caller (the simulator has no auth)" : `user "${userFor(auth, token)}"`

const text = (value: unknown): string => (typeof value === "string" ? value : "")

const accessStatus = (rights: ReadonlyArray<string> | "*", spec: Record<string, unknown>, subject: string): Record<string, unknown> => {
  const resource = isJsonObject(spec["resourceAttributes"]) ? spec["resourceAttributes"] : undefined
  const verb = text((resource ?? (isJsonObject(spec["nonResourceAttributes"]) ? spec["nonResourceAttributes"] : {}))["verb"])
  // Non-resource paths (discovery, /version, /openapi) are served to everyone for reading.
  const allowed = rights === "*" || (resource === undefined ? verb === "get" : verb !== "*" && rights.includes(verb))
  if (!allowed) return { allowed: false }
  const what = rights === "*" ? "do anything" : resource === undefined ? "read non-resource paths" : `${rights.join(", ")} every resource`
  return { allowed: true, reason: `the simulator's token table lets ${subject} ${what}` }
}

const rulesStatus = (rights: ReadonlyArray<string> | "*"): Record<string, unknown> => ({
  resourceRules: [{ verbs: rights === "*" ? ["*"] : [...rights], apiGroups: ["*"], resources: ["*"] }],
  nonResourceRules: [{ verbs: rights === "*" ? ["*"] : ["get"], nonResourceURLs: ["*"] }],
  incomplete: false
})

/** A review's spec, or the 422 an access review with not exactly one kind of attributes gets. */
export const reviewSpec = (kind: SelfReviewKind, body: unknown): { readonly spec: Record<string, unknown> } | { readonly response: ApiResponse } => {
  const object = isJsonObject(body) ? body : {}
  const spec = isJsonObject(object["spec"]) ? object["spec"] : {}
  if (kind === "SelfSubjectAccessReview" || kind === "SubjectAccessReview") {
    const given = ["resourceAttributes", "nonResourceAttributes"].filter((k) => isJsonObject(spec[k]))
    if (given.length !== 1) {
      const resource = servedReviews(true).find((r) => r.kind === kind) as Resource
      return { response: invalid(resource, "", [invalidValue("spec.resourceAttributes", null, "exactly one of nonResourceAttributes or resourceAttributes must be specified")]) }
    }
  }
  return { spec }
}

/** The 201 answer to a review: the spec asked about and the status found. */
export const reviewAnswer = (kind: SelfReviewKind, spec: Record<string, unknown>, status: Record<string, unknown>): ApiResponse => ({
  code: 201,
  body: { kind, apiVersion: reviewGroupVersion, metadata: { creationTimestamp: null }, spec, status }
})

/** The answer to creating a self review with `body` as the caller holding `token`. */
export const selfReview = (auth: AuthTokens | undefined, kind: SelfReviewKind, token: string | undefined, body: unknown): ApiResponse => {
  const rights = rightsOf(auth, token)
  if (rights === undefined) return unauthorized()
  const read = reviewSpec(kind, body)
  if ("response" in read) return read.response
  if (kind === "SubjectAccessReview") return pathNotFound()
  const status = kind === "SelfSubjectAccessReview" ? accessStatus(rights, read.spec, who(auth, token)) : rulesStatus(rights)
  return reviewAnswer(kind, read.spec, status)
}
