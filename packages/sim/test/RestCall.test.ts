import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { Resources } from "../src/kinds/Builtin.ts"
import { acceptsTable, patchTypeOf } from "../src/http/MediaType.ts"
import { type RestInput, decodeRestCall } from "../src/http/RestCall.ts"

const trainJobs = Resources.find((r) => r.plural === "trainjobs")!
const target = (name?: string): RestInput["target"] => ({
  resource: trainJobs,
  version: "v1alpha1",
  namespace: "default",
  ...(name === undefined ? {} : { name })
})
type Over = Partial<Omit<RestInput, "query">> & { readonly query?: string }
const input = (over: Over): RestInput => ({
  method: "GET",
  target: target(),
  body: "",
  ...over,
  query: new URLSearchParams(over.query ?? "")
})

const decoded = (over: Over) => {
  const result = decodeRestCall(input(over))
  if (!result.ok) throw new Error(`expected a call, got ${JSON.stringify(result.response)}`)
  return result.call
}

const refused = (over: Over) => {
  const result = decodeRestCall(input(over))
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.call)}`)
  return result.response
}

describe("decodeRestCall", () => {
  it("reads the verb from the method, the name and ?watch", () => {
    expect(decoded({}).request.verb).toBe("list")
    expect(decoded({ query: "watch=true" }).request.verb).toBe("watch")
    expect(decoded({ query: "watch=1" }).request.verb).toBe("watch")
    // Python's client writes booleans as True/False; apimachinery reads any value but 0 and false as true.
    for (const watching of ["True", "TRUE", "yes", ""]) expect(decoded({ query: `watch=${watching}` }).request.verb).toBe("watch")
    for (const listing of ["False", "FALSE", "false", "0"]) expect(decoded({ query: `watch=${listing}` }).request.verb).toBe("list")
    expect(decoded({ query: "watch=True&watch=false" }).request.verb).toBe("watch")
    expect(decoded({ target: target("a") }).request.verb).toBe("get")
    expect(decoded({ method: "POST", body: "{}" }).request.verb).toBe("create")
    expect(decoded({ method: "PUT", target: target("a"), body: "{}" }).request.verb).toBe("update")
    expect(decoded({ method: "DELETE", target: target("a") }).request.verb).toBe("delete")
    expect(decoded({ method: "PATCH", target: target("a"), body: "{}", contentType: "application/merge-patch+json" }).request).toMatchObject({
      verb: "patch",
      patchType: "merge"
    })
  })

  it("refuses methods the target does not take", () => {
    expect(refused({ method: "DELETE" }).code).toBe(405)
    expect(refused({ method: "POST", target: target("a"), body: "{}" }).code).toBe(405)
    expect(refused({ method: "PUT", body: "{}" }).code).toBe(405)
    expect(refused({ method: "OPTIONS" }).code).toBe(405)
  })

  it("narrows a watch on a named object to that name", () => {
    const call = decoded({ target: target("job"), query: "watch=true&fieldSelector=status.phase%3DX" })
    expect(call.request.name).toBeUndefined()
    expect(call.request.fieldSelector).toBe("metadata.name=job,status.phase=X")
  })

  test.prop([
    fc.string({ minLength: 1 }).filter((s) => !/\s/.test(s)),
    fc.integer({ min: 1, max: 1_000_000 }),
    fc.string({ minLength: 1 }),
    fc.string({ minLength: 1 }),
    fc.string({ minLength: 1 })
  ])("carries token, limit, continue, selectors and resourceVersion through", (token, limit, cont, label, rv) => {
    const query = new URLSearchParams({ limit: String(limit), continue: cont, labelSelector: label, resourceVersion: rv })
    const call = decoded({ query: query.toString(), authorization: `Bearer ${token}` })
    expect(call.request).toEqual({
      verb: "list",
      group: "trainer.kubeflow.org",
      version: "v1alpha1",
      resource: "trainjobs",
      namespace: "default",
      limit,
      continue: cont,
      labelSelector: label,
      resourceVersion: rv,
      token
    })
  })

  it("reads fieldValidation on writes, refuses an unknown directive, and leaves it off reads", () => {
    expect(decoded({ method: "POST", body: "{}", query: "fieldValidation=Strict" }).request.fieldValidation).toBe("Strict")
    expect(decoded({ method: "PUT", target: target("a"), body: "{}", query: "fieldValidation=Ignore" }).request.fieldValidation).toBe("Ignore")
    expect(decoded({ method: "PATCH", target: target("a"), body: "{}", contentType: "application/merge-patch+json", query: "fieldValidation=Warn" }).request.fieldValidation).toBe("Warn")
    expect(decoded({ method: "POST", body: "{}" }).request.fieldValidation).toBeUndefined()
    expect(decoded({ query: "fieldValidation=Strict" }).request.fieldValidation).toBeUndefined()
    expect(refused({ method: "POST", body: "{}", query: "fieldValidation=strict" })).toMatchObject({
      code: 400,
      body: { reason: "BadRequest", message: 'fieldValidation: unsupported value "strict", supported values: "Ignore", "Warn", "Strict"' }
    })
  })

  it("reads dryRun and propagationPolicy from the query or a DeleteOptions body", () => {
    expect(decoded({ method: "POST", body: "{}", query: "dryRun=All" }).request.dryRun).toBe(true)
    const fromBody = decoded({
      method: "DELETE",
      target: target("a"),
      body: JSON.stringify({ kind: "DeleteOptions", propagationPolicy: "Foreground", dryRun: ["All"] })
    }).request
    expect(fromBody).toMatchObject({ dryRun: true, propagationPolicy: "Foreground" })
    expect(decoded({ method: "DELETE", target: target("a"), query: "propagationPolicy=Orphan" }).request.propagationPolicy).toBe("Orphan")
  })

  it("names every problem in a bad request at once", () => {
    const response = refused({ query: "limit=ten&dryRun=Some&propagationPolicy=Sideways" })
    expect(response.code).toBe(400)
    const message = (response.body as { message: string }).message
    expect(message).toContain("limit")
    expect(message).toContain("dryRun")
    expect(message).toContain("propagationPolicy")
  })

  it("reads a negative limit as no limit, and refuses a malformed timeout as the real server does", () => {
    expect(decoded({ query: "limit=-5" }).request.limit).toBeUndefined()
    expect(decoded({ query: "timeout=32s" }).request.verb).toBe("list")
    const response = refused({ query: "timeout=soon" })
    expect(response.code).toBe(400)
    expect((response.body as { message: string }).message).toBe('invalid timeout specified in the request URL - time: invalid duration "soon"')
  })

  it("reads force as apimachinery reads booleans", () => {
    const apply = (force: string) => decoded({ method: "PATCH", target: target("a"), body: "{}", contentType: "application/apply-patch+yaml", query: `fieldManager=m&force=${force}` }).request.force
    expect(apply("True")).toBe(true)
    expect(apply("yes")).toBe(true)
    expect(apply("False")).toBe(false)
    expect(apply("0")).toBe(false)
  })

  it("refuses bodies that are not JSON objects, and patches of unknown type", () => {
    expect(refused({ method: "POST", body: "{not json" }).code).toBe(400)
    expect(refused({ method: "POST", body: "[1]" }).code).toBe(400)
    expect(refused({ method: "POST", body: "" }).code).toBe(400)
    expect(refused({ method: "PATCH", target: target("a"), body: "{}", contentType: "text/plain" }).code).toBe(415)
  })

  it("reads JSON patches as arrays and apply patches as YAML", () => {
    expect(decoded({ method: "PATCH", target: target("a"), body: '[{"op":"remove","path":"/spec/x"}]', contentType: "application/json-patch+json" }).request.body).toEqual([
      { op: "remove", path: "/spec/x" }
    ])
    expect(decoded({ method: "PATCH", target: target("a"), body: "spec:\n  suspend: false\n", contentType: "application/apply-patch+yaml" }).request).toMatchObject({
      patchType: "apply",
      body: { spec: { suspend: false } }
    })
  })

  it("asks for a Table when kubectl does, with the row objects it wants", () => {
    const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
    expect(decoded({ accept: kubectlAccept }).table).toBe("Metadata")
    expect(decoded({ accept: kubectlAccept, query: "includeObject=Object" }).table).toBe("Object")
    expect(decoded({ accept: "application/json" }).table).toBeUndefined()
    expect(decoded({ method: "POST", body: "{}", accept: kubectlAccept }).table).toBeUndefined()
  })
})

describe("media types", () => {
  test.prop([fc.shuffledSubarray(["as=Table", "g=meta.k8s.io", "v=v1"], { minLength: 3, maxLength: 3 })])(
    "a Table is asked for whatever the parameter order",
    (params) => {
      expect(acceptsTable(`application/json;${params.join(";")}`)).toBe(true)
      expect(acceptsTable(`application/json;${params.join(";").replace("v=v1", "v=v1beta1")}`)).toBe(false)
    }
  )

  it("maps patch content types", () => {
    expect(patchTypeOf("application/json-patch+json")).toBe("json")
    expect(patchTypeOf("application/merge-patch+json; charset=utf-8")).toBe("merge")
    expect(patchTypeOf("application/strategic-merge-patch+json")).toBe("strategic")
    expect(patchTypeOf("application/apply-patch+yaml")).toBe("apply")
    expect(patchTypeOf("application/json")).toBeUndefined()
    expect(patchTypeOf(undefined)).toBeUndefined()
  })
})
