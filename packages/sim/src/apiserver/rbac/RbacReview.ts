// authorization.k8s.io/v1's reviews answered from RBAC, as kube-apiserver answers them: a
// SelfSubjectAccessReview (`kubectl auth can-i`) asks the RBAC authorizer about one request as the
// caller (or the user it impersonates); a SelfSubjectRulesReview (`kubectl auth can-i --list`) lists
// the rules of every role bound to it in a namespace; a SubjectAccessReview asks about any user.
import type { ApiResponse, Impersonation } from "../../Api.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import { type SelfReviewKind, reviewAnswer, reviewSpec, subjectAccessReviewResource } from "../SelfReview.ts"
import { forbiddenFor } from "../Auth.ts"
import type { RbacAuth } from "./RbacAuth.ts"
import type { RequestAttributes, UserInfo } from "./RbacRules.ts"

const text = (value: unknown): string => (typeof value === "string" ? value : "")
const strings = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [])

/** The request a review's spec asks about. */
export const attributesOf = (spec: Record<string, unknown>): RequestAttributes => {
  if (isJsonObject(spec["resourceAttributes"])) {
    const a = spec["resourceAttributes"]
    const optional = (key: string) => (text(a[key]) === "" ? {} : { [key]: text(a[key]) })
    return { kind: "resource", verb: text(a["verb"]), group: text(a["group"]), resource: text(a["resource"]), ...optional("subresource"), ...optional("name"), ...optional("namespace") }
  }
  const a = isJsonObject(spec["nonResourceAttributes"]) ? spec["nonResourceAttributes"] : {}
  return { kind: "nonResource", verb: text(a["verb"]), path: text(a["path"]) }
}

const accessStatus = (auth: RbacAuth, user: UserInfo, spec: Record<string, unknown>): Record<string, unknown> => {
  const decision = auth.decide(user, attributesOf(spec))
  return decision.allowed ? { allowed: true, ...(decision.reason === "" ? {} : { reason: decision.reason }) } : { allowed: false }
}

const rulesStatus = (auth: RbacAuth, user: UserInfo, spec: Record<string, unknown>): Record<string, unknown> => {
  const rules = auth.rules(user, text(spec["namespace"]) || undefined)
  const nonEmpty = (key: string, list: ReadonlyArray<string>) => (list.length === 0 ? {} : { [key]: list })
  return {
    resourceRules: rules
      .filter((r) => r.resources.length > 0)
      .map((r) => ({ verbs: r.verbs, ...nonEmpty("apiGroups", r.apiGroups), ...nonEmpty("resources", r.resources), ...nonEmpty("resourceNames", r.resourceNames) })),
    nonResourceRules: rules.filter((r) => r.nonResourceURLs.length > 0).map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
    incomplete: false
  }
}

/** The answer to creating a self review with `body` as the caller holding `token` (or the user it impersonates). */
export const rbacSelfReview = (auth: RbacAuth, kind: SelfReviewKind, token: string | undefined, body: unknown, impersonate?: Impersonation): ApiResponse => {
  const identity = auth.identify(token, impersonate)
  if (!identity.ok) return identity.response
  if (kind === "SubjectAccessReview") {
    // Asking about someone else is itself a request RBAC must allow.
    const allowed = auth.decide(identity.user, { kind: "resource", verb: "create", group: "authorization.k8s.io", resource: "subjectaccessreviews" })
    if (!allowed.allowed) return forbiddenFor(identity.user.name, subjectAccessReviewResource, { verb: "create" })
  }
  const read = reviewSpec(kind, body)
  if ("response" in read) return read.response
  const status =
    kind === "SelfSubjectAccessReview"
      ? accessStatus(auth, identity.user, read.spec)
      : kind === "SubjectAccessReview"
        ? subjectAccessStatus(auth, read.spec)
        : rulesStatus(auth, identity.user, read.spec)
  return reviewAnswer(kind, read.spec, status)
}

/** The status of a SubjectAccessReview: whether the spec's user (with its groups) may make the spec's request. */
export const subjectAccessStatus = (auth: RbacAuth, spec: Record<string, unknown>): Record<string, unknown> =>
  accessStatus(auth, { name: text(spec["user"]), groups: strings(spec["groups"]) }, spec)
