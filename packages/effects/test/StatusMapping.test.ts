import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { statusBody } from "@dispatch/sim"
import { ClusterError, describePermission } from "../src/ClusterError.ts"
import { clusterErrorOf, deniedPermission, isSuccessCode, parseStatus, reasonOfStatus, retryAfterMsOf } from "../src/StatusMapping.ts"

const failureCode = fc.integer({ min: 300, max: 599 })
const cause = fc.record({ reason: fc.string(), message: fc.string(), field: fc.string() })

describe("StatusMapping", () => {
  test.prop([failureCode, fc.string(), fc.string(), fc.array(cause, { maxLength: 4 })])(
    "parses back every part of a Status body",
    (code, reason, message, causes) => {
      const status = parseStatus(code, statusBody(code, reason, message, { causes }))
      expect(status).toEqual({ code, reason, message, causes })
    }
  )

  test.prop([failureCode, fc.anything()])("never throws on an arbitrary body and keeps the code", (code, body) => {
    expect(parseStatus(code, body).code).toBe(code)
  })

  test.prop([fc.integer({ min: 0, max: 86_400 }), fc.option(fc.integer({ min: 0, max: 86_400 }), { nil: undefined })])(
    "reads the wait from Retry-After's seconds, else from the Status's retryAfterSeconds",
    (header, details) => {
      const body = details === undefined ? statusBody(429, "TooManyRequests", "slow down") : statusBody(429, "TooManyRequests", "slow down", { retryAfterSeconds: details })
      expect(retryAfterMsOf(body, String(header))).toBe(header * 1000)
      expect(retryAfterMsOf(body, undefined)).toBe(details === undefined ? undefined : details * 1000)
      expect(clusterErrorOf("get x", 429, body, ` ${header} `).retryAfterMs).toBe(header * 1000)
    }
  )

  it("ignores a Retry-After it cannot read as seconds, and a retryAfterSeconds that is no wait", () => {
    expect(retryAfterMsOf({}, "Wed, 21 Oct 2026 07:28:00 GMT")).toBeUndefined()
    expect(retryAfterMsOf({ details: { retryAfterSeconds: 2 } }, "soon")).toBe(2000)
    expect(retryAfterMsOf({ details: { retryAfterSeconds: -1 } }, undefined)).toBeUndefined()
    expect(retryAfterMsOf({ details: { retryAfterSeconds: 0 } }, undefined)).toBe(0)
    expect(retryAfterMsOf({}, "0")).toBe(0)
    expect(retryAfterMsOf({ details: { retryAfterSeconds: "2" } }, undefined)).toBeUndefined()
    expect(retryAfterMsOf({ details: { retryAfterSeconds: Number.POSITIVE_INFINITY } }, undefined)).toBeUndefined()
    expect(retryAfterMsOf("not a status", undefined)).toBeUndefined()
    expect("retryAfterMs" in clusterErrorOf("get x", 500, {})).toBe(false)
    expect(clusterErrorOf("get x", 503, {}).code).toBe(503)
    expect(new ClusterError({ reason: "Unanswered", call: "get x" }).code).toBeUndefined()
  })

  it("maps each code family to its reason", () => {
    const of = (code: number, reason = "") => reasonOfStatus({ code, reason, message: "", causes: [] })
    expect(of(404)).toBe("NotFound")
    expect(of(409, "AlreadyExists")).toBe("AlreadyExists")
    expect(of(409, "Conflict")).toBe("Conflict")
    expect(of(422, "Invalid")).toBe("Invalid")
    expect(of(400, "BadRequest")).toBe("Invalid")
    expect(of(403, "Forbidden")).toBe("Forbidden")
    expect(of(401, "Unauthorized")).toBe("Forbidden")
    expect(of(500)).toBe("ServerError")
    expect(of(503)).toBe("ServerError")
    expect(of(429)).toBe("ServerError")
    expect(of(504)).toBe("Unanswered")
  })

  test.prop([fc.string(), fc.string()])(
    "an admission webhook's denial (403 naming the webhook) refuses the object: Invalid, not Forbidden",
    (webhook, message) => {
      const denial = `admission webhook ${JSON.stringify(webhook)} denied the request: ${message}`
      expect(reasonOfStatus({ code: 403, reason: "Forbidden", message: denial, causes: [] })).toBe("Invalid")
      const error = clusterErrorOf("create trainjobs default/x", 403, statusBody(403, "Forbidden", denial))
      expect(error.reason).toBe("Invalid")
      expect(error.reasons.join(" ")).toContain(message)
      // RBAC's refusal names no webhook.
      expect(reasonOfStatus({ code: 403, reason: "Forbidden", message: `user "u" cannot create ${message}`, causes: [] })).toBe("Forbidden")
    }
  )

  test.prop([failureCode, fc.string(), fc.string()])("a ClusterError survives a round trip through its schema", (code, reason, message) => {
    const error = clusterErrorOf("get trainjobs default/x", code, statusBody(code, reason, message))
    const schema = ClusterError
    const encoded = Schema.encodeSync(schema)(error)
    const decoded = Schema.decodeSync(schema)(JSON.parse(JSON.stringify(encoded)))
    expect(decoded.reason).toBe(error.reason)
    expect(decoded.status).toEqual(error.status)
    expect(decoded.reasons).toEqual(error.reasons)
  })

  it("lists the Status message and every cause among its reasons", () => {
    const error = clusterErrorOf("create trainjobs default/x", 422, statusBody(422, "Invalid", "bad object", {
      causes: [{ field: "spec.trainer.numNodes", message: "must be positive" }, { message: "second" }]
    }))
    expect(error.reason).toBe("Invalid")
    expect(error.reasons).toEqual([
      "create trainjobs default/x: Invalid (422): bad object",
      "create trainjobs default/x: spec.trainer.numNodes: must be positive",
      "create trainjobs default/x: second"
    ])
  })
  it("keeps only the causes that are objects, each with only the fields it carries as strings", () => {
    const body = { kind: "Status", details: { causes: ["text", null, 3, [], [{ message: "nested" }], { message: "kept", field: 7 }, { reason: "FieldValueInvalid" }] } }
    expect(parseStatus(422, body).causes).toStrictEqual([{ message: "kept" }, { reason: "FieldValueInvalid" }])
    expect(parseStatus(422, { details: { causes: "not a list" } }).causes).toStrictEqual([])
    expect(parseStatus(422, { details: [{ causes: [{ message: "in a list" }] }] }).causes).toStrictEqual([])
    expect(parseStatus(422, [{ message: "a list, not a Status" }])).toStrictEqual({ code: 422, reason: "", message: "", causes: [] })
  })

  it("an answer that is plain text (a proxy's error page) keeps its first 500 characters as the message", () => {
    expect(parseStatus(502, "Bad Gateway")).toStrictEqual({ code: 502, reason: "", message: "Bad Gateway", causes: [] })
    const page = `<html>${"x".repeat(600)}</html>`
    expect(parseStatus(502, page).message).toBe(page.slice(0, 500))
    expect(parseStatus(502, null).message).toBe("")
    expect(parseStatus(502, 42).message).toBe("")
  })

  it("only a 403 is an admission webhook's denial; any other code keeps its own reason", () => {
    const denial = 'admission webhook "w" denied the request: no'
    expect(reasonOfStatus({ code: 500, reason: "InternalError", message: denial, causes: [] })).toBe("ServerError")
    expect(reasonOfStatus({ code: 404, reason: "NotFound", message: denial, causes: [] })).toBe("NotFound")
    expect(reasonOfStatus({ code: 403, reason: "Forbidden", message: ` ${denial}`, causes: [] })).toBe("Forbidden")
  })

  // kube-apiserver's 403 for RBAC: its details name the resource (as `kind`), its group and the object's name.
  const rbacRefusal = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: 'trainjobs.trainer.kubeflow.org "j" is forbidden: User "system:serviceaccount:ml-team:dispatch" cannot delete resource "trainjobs" in API group "trainer.kubeflow.org" in the namespace "ml-team"',
    reason: "Forbidden",
    details: { name: "j", group: "trainer.kubeflow.org", kind: "trainjobs" },
    code: 403
  }
  const deleteCall = { verb: "delete", group: "trainer.kubeflow.org", resource: "trainjobs", namespace: "ml-team" }

  it("an RBAC refusal names the permission the caller lacks: the call's verb and namespace, the details' group and resource", () => {
    expect(parseStatus(403, rbacRefusal).details).toStrictEqual({ name: "j", group: "trainer.kubeflow.org", kind: "trainjobs" })
    const error = clusterErrorOf("delete trainjobs ml-team/j", 403, rbacRefusal, undefined, deleteCall)
    expect(error.reason).toBe("Forbidden")
    expect(error.denied).toStrictEqual({ verb: "delete", group: "trainer.kubeflow.org", resource: "trainjobs", namespace: "ml-team" })
    expect(error.reasons).toContain("delete trainjobs ml-team/j: missing permission: delete trainjobs.trainer.kubeflow.org in namespace ml-team")
    // The details win over the call's own naming: they are what the authorizer refused.
    expect(deniedPermission(parseStatus(403, { ...rbacRefusal, details: { group: "", kind: "pods" } }), { ...deleteCall, subresource: "log", namespace: undefined })).toStrictEqual({
      verb: "delete",
      group: "",
      resource: "pods",
      subresource: "log"
    })
    // Without details, the call's own group and resource.
    expect(deniedPermission(parseStatus(403, { ...rbacRefusal, details: undefined }), deleteCall)).toStrictEqual(deleteCall)
  })

  it("words a permission as kubectl auth can-i asks for it: the core group unnamed, a subresource, a cluster-wide resource", () => {
    expect(describePermission({ verb: "list", group: "", resource: "pods", namespace: "ml-team" })).toBe("list pods in namespace ml-team")
    expect(describePermission({ verb: "get", group: "", resource: "pods", subresource: "log", namespace: "ml-team" })).toBe("get pods --subresource=log in namespace ml-team")
    expect(describePermission({ verb: "patch", group: "kueue.x-k8s.io", resource: "workloads", subresource: "status", namespace: "ml-team" })).toBe(
      "patch workloads.kueue.x-k8s.io --subresource=status in namespace ml-team"
    )
    expect(describePermission({ verb: "get", group: "trainer.kubeflow.org", resource: "clustertrainingruntimes" })).toBe("get clustertrainingruntimes.trainer.kubeflow.org (cluster-wide)")
  })

  it("names no permission for a webhook's denial, a 401, another 403 reason, or a call it was not told of", () => {
    const webhook = { ...rbacRefusal, message: 'admission webhook "w" denied the request: no' }
    expect(deniedPermission(parseStatus(403, webhook), deleteCall)).toBeUndefined()
    expect(deniedPermission(parseStatus(401, { ...rbacRefusal, code: 401, reason: "Unauthorized" }), deleteCall)).toBeUndefined()
    expect(deniedPermission(parseStatus(403, { ...rbacRefusal, reason: "" }), deleteCall)).toBeUndefined()
    expect(deniedPermission(parseStatus(404, { ...rbacRefusal, code: 404 }), deleteCall)).toBeUndefined()
    expect(clusterErrorOf("delete trainjobs ml-team/j", 403, rbacRefusal).denied).toBeUndefined()
    expect(parseStatus(403, { ...rbacRefusal, details: { causes: [] } }).details).toBeUndefined()
    expect(parseStatus(403, { ...rbacRefusal, details: { kind: 7, name: "n" } }).details).toStrictEqual({ name: "n" })
  })

  it("success is exactly a 2xx code", () => {
    expect([199, 200, 201, 204, 299, 300, 304, 404].map(isSuccessCode)).toEqual([false, true, true, true, true, false, false, false])
  })
})
