// Self reviews answered from the token table: allowed verbs, refused ones, no token, a malformed spec.
import { describe, expect, it } from "vitest"
import type { AuthTokens } from "../src/apiserver/Auth.ts"
import { selfReview } from "../src/apiserver/SelfReview.ts"

const auth: AuthTokens = { tokens: { admin: "*", reader: ["get", "list", "watch"] } }
const asks = (verb: string, resource = "trainjobs") => ({ spec: { resourceAttributes: { verb, resource, group: "trainer.kubeflow.org" } } })

describe("self reviews", () => {
  it("allow a token's verbs and refuse the others", () => {
    expect(selfReview(auth, "SelfSubjectAccessReview", "reader", asks("list")).body).toMatchObject({ status: { allowed: true } })
    expect(selfReview(auth, "SelfSubjectAccessReview", "reader", asks("create")).body).toMatchObject({ status: { allowed: false } })
    expect(selfReview(auth, "SelfSubjectAccessReview", "reader", asks("*")).body).toMatchObject({ status: { allowed: false } })
    expect(selfReview(auth, "SelfSubjectAccessReview", "admin", asks("*", "*")).body).toMatchObject({ status: { allowed: true } })
    expect(selfReview(undefined, "SelfSubjectAccessReview", undefined, asks("delete")).body).toMatchObject({ status: { allowed: true } })
  })

  it("let everyone read non-resource paths and nothing more", () => {
    const path = (verb: string) => ({ spec: { nonResourceAttributes: { verb, path: "/version" } } })
    expect(selfReview(auth, "SelfSubjectAccessReview", "reader", path("get")).body).toMatchObject({ status: { allowed: true } })
    expect(selfReview(auth, "SelfSubjectAccessReview", "reader", path("post")).body).toMatchObject({ status: { allowed: false } })
  })

  it("answer 401 without a known token and 422 without exactly one kind of attributes", () => {
    expect(selfReview(auth, "SelfSubjectAccessReview", "nobody", asks("get")).code).toBe(401)
    expect(selfReview(auth, "SelfSubjectRulesReview", undefined, {}).code).toBe(401)
    const neither = selfReview(auth, "SelfSubjectAccessReview", "reader", { spec: {} })
    expect(neither).toMatchObject({ code: 422, body: { reason: "Invalid", details: { causes: [{ field: "spec.resourceAttributes" }] } } })
    const both = selfReview(auth, "SelfSubjectAccessReview", "reader", { spec: { ...asks("get").spec, nonResourceAttributes: { verb: "get", path: "/" } } })
    expect(both.code).toBe(422)
  })

  it("list a token's rules", () => {
    expect(selfReview(auth, "SelfSubjectRulesReview", "reader", { spec: { namespace: "default" } })).toMatchObject({
      code: 201,
      body: { kind: "SelfSubjectRulesReview", status: { resourceRules: [{ verbs: ["get", "list", "watch"], apiGroups: ["*"], resources: ["*"] }], incomplete: false } }
    })
  })
})
