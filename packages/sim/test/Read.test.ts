import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, created, meta, namespace, status, trainJob } from "./SimFixture.ts"

const names = (body: unknown): ReadonlyArray<string> => ((body as { items: ReadonlyArray<KubeObject> }).items ?? []).map((o) => String(meta(o)["name"]))

describe("get and list", () => {
  it("answers 404 NotFound with the plural in details", () => {
    const response = call(bareSimulator(), { verb: "get", ...at("trainjobs"), name: "ghost" })
    expect(response).toEqual({
      code: 404,
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'trainjobs.trainer.kubeflow.org "ghost" not found',
        reason: "NotFound",
        details: { name: "ghost", group: "trainer.kubeflow.org", kind: "trainjobs" },
        code: 404
      }
    })
  })

  it("lists as a List kind carrying the store's resourceVersion, in one namespace or all", () => {
    const sim = bareSimulator()
    created(sim, "namespaces", namespace("team"))
    created(sim, "trainjobs", trainJob("b"))
    created(sim, "trainjobs", trainJob("a"))
    const last = created(sim, "trainjobs", trainJob("c"), "team")
    const list = call(sim, { verb: "list", ...at("trainjobs") })
    expect(list.body).toMatchObject({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJobList", metadata: { resourceVersion: meta(last)["resourceVersion"] } })
    expect(names(list.body)).toEqual(["a", "b"])
    const everywhere = call(sim, { verb: "list", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs" })
    expect(names(everywhere.body)).toEqual(["a", "b", "c"])
    expect((everywhere.body as { items: ReadonlyArray<KubeObject> }).items[0]?.kind).toBe("TrainJob")
  })

  it("filters by label selector and by metadata.name / metadata.namespace field selectors", () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("one", {}, { labels: { team: "a", tier: "x" } }))
    created(sim, "trainjobs", trainJob("two", {}, { labels: { team: "b" } }))
    created(sim, "trainjobs", trainJob("three"))
    const list = (extra: object) => names(call(sim, { verb: "list", ...at("trainjobs"), ...extra }).body)
    expect(list({ labelSelector: "team=a" })).toEqual(["one"])
    expect(list({ labelSelector: "team in (a,b),!tier" })).toEqual(["two"])
    expect(list({ labelSelector: "team" })).toEqual(["one", "two"])
    expect(list({ fieldSelector: "metadata.name=three" })).toEqual(["three"])
    expect(list({ fieldSelector: "metadata.name!=three,metadata.namespace=default" })).toEqual(["one", "two"])
    const badField = call(sim, { verb: "list", ...at("trainjobs"), fieldSelector: "spec.suspend=true" })
    expect(badField.code).toBe(400)
    expect(status(badField)["message"]).toBe('"spec.suspend" is not a known field selector: only "metadata.name", "metadata.namespace"')
    expect(call(sim, { verb: "list", ...at("trainjobs"), labelSelector: "a in (" }).code).toBe(400)
    expect(call(sim, { verb: "list", ...at("trainjobs"), continue: "garbage" }).code).toBe(400)
  })

  it("pages with limit and continue, counting the remaining items", () => {
    const sim = bareSimulator()
    for (const n of ["a", "b", "c"]) created(sim, "trainjobs", trainJob(n))
    const first = call(sim, { verb: "list", ...at("trainjobs"), limit: 2 }).body as { metadata: Record<string, unknown> }
    expect(names(first)).toEqual(["a", "b"])
    expect(first.metadata["remainingItemCount"]).toBe(1)
    const second = call(sim, { verb: "list", ...at("trainjobs"), limit: 2, continue: String(first.metadata["continue"]) }).body as { metadata: Record<string, unknown> }
    expect(names(second)).toEqual(["c"])
    expect(second.metadata["continue"]).toBeUndefined()
    expect(second.metadata["resourceVersion"]).toBe(first.metadata["resourceVersion"])
  })

  propTest.prop([fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/), { maxLength: 25 }), fc.integer({ min: 1, max: 7 }), fc.boolean()], { numRuns: 40 })(
    "pages with limit and continue add up to exactly the full list",
    (jobNames, limit, labelled) => {
      const sim = bareSimulator()
      jobNames.forEach((n, i) => created(sim, "trainjobs", trainJob(n, {}, { labels: { even: String(i % 2 === 0) } })))
      const selector = labelled ? { labelSelector: "even=true" } : {}
      const full = names(call(sim, { verb: "list", ...at("trainjobs"), ...selector }).body)
      const paged: Array<string> = []
      let token: string | undefined
      for (let page = 0; page <= jobNames.length; page++) {
        const body = call(sim, { verb: "list", ...at("trainjobs"), ...selector, limit, ...(token === undefined ? {} : { continue: token }) }).body as { metadata: Record<string, unknown> }
        const got = names(body)
        expect(got.length).toBeLessThanOrEqual(limit)
        paged.push(...got)
        token = body.metadata["continue"] as string | undefined
        if (token === undefined) break
      }
      expect(token).toBeUndefined()
      expect(paged).toEqual(full)
      expect(full).toEqual([...full].sort())
    }
  )
})
