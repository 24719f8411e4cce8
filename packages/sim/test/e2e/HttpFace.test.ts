// The HTTP face's own protocol: discovery and OpenAPI documents, refusals before the simulator is
// asked (404, 405, 413, 415), Table answers, watches over the wire, and closing with requests open.
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Resources } from "../../src/kinds/Builtin.ts"
import { maxBodyBytes } from "../../src/http/RequestBody.ts"
import { changeLogCapacity } from "../../src/apiserver/store/Store.ts"
import { type Served, eventually, serve, trainJob } from "../HttpFixture.ts"

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

const call = (
  served: Served,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string>; onResponse?: () => void } = {}
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    // A bound no answer misses on a busy machine.
    const req = request(`${served.server.url}${path}`, { method, headers: { "Content-Type": "application/json", ...options.headers }, timeout: 60_000 }, (res) => {
      options.onResponse?.()
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      res.on("error", reject)
    })
    req.on("timeout", () => req.destroy(new Error("timed out")))
    req.on("error", reject)
    req.end(options.body)
  })

const json = (answer: Answer): Record<string, any> => JSON.parse(answer.body) as Record<string, any>
const jobsPath = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs"
const tableAccept = { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" }

describe("the HTTP face's protocol", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ controllers: {} })
  })
  afterAll(async () => served.close())

  it("serves discovery for every resource", async () => {
    expect(json(await call(served, "GET", "/version"))).toMatchObject({ major: "1", minor: "32" })
    expect(json(await call(served, "GET", "/api"))).toMatchObject({ kind: "APIVersions", versions: ["v1"] })
    const groups = json(await call(served, "GET", "/apis"))["groups"] as Array<{ name: string; preferredVersion: { version: string } }>
    expect(groups.map((g) => g.name)).toEqual(["trainer.kubeflow.org", "kueue.x-k8s.io", "jobset.x-k8s.io", "batch", "apps", "policy", "authorization.k8s.io"])
    const reviews = json(await call(served, "GET", "/apis/authorization.k8s.io/v1"))["resources"] as Array<Record<string, unknown>>
    expect(reviews.map((r) => [r["name"], r["verbs"]])).toEqual([
      ["selfsubjectaccessreviews", ["create"]],
      ["selfsubjectrulesreviews", ["create"]]
    ])
    for (const r of Resources) {
      for (const version of r.versions) {
        const list = json(await call(served, "GET", r.group === "" ? `/api/${version}` : `/apis/${r.group}/${version}`))
        const entry = (list["resources"] as Array<Record<string, unknown>>).find((e) => e["name"] === r.plural)
        expect(entry).toMatchObject({ kind: r.kind, namespaced: r.namespaced, singularName: r.singular })
        expect(entry?.["verbs"]).toEqual(expect.arrayContaining(["get", "list", "watch", "create", "update", "patch", "delete"]))
        const status = (list["resources"] as Array<Record<string, unknown>>).some((e) => e["name"] === `${r.plural}/status`)
        expect(status).toBe(r.hasStatus)
      }
    }
  })

  it("serves OpenAPI v3 documents that let kubectl leave validation to the server", async () => {
    const root = json(await call(served, "GET", "/openapi/v3"))["paths"] as Record<string, { serverRelativeURL: string }>
    expect(Object.keys(root).sort()).toEqual([
      "api/v1",
      "apis/apps/v1",
      "apis/batch/v1",
      "apis/jobset.x-k8s.io/v1alpha2",
      "apis/kueue.x-k8s.io/v1beta1",
      "apis/kueue.x-k8s.io/v1beta2",
      "apis/policy/v1",
      "apis/trainer.kubeflow.org/v1alpha1"
    ])
    const doc = json(await call(served, "GET", root["apis/trainer.kubeflow.org/v1alpha1"]?.serverRelativeURL ?? ""))
    const patch = doc["paths"][`${jobsPath.replace("/default/", "/{namespace}/")}/{name}`]["patch"]
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "trainer.kubeflow.org", version: "v1alpha1", kind: "TrainJob" })
    expect(patch["parameters"].map((p: { name: string }) => p.name)).toContain("fieldValidation")
    expect(Object.keys(patch["requestBody"]["content"])).not.toContain("application/strategic-merge-patch+json")
    expect(doc["components"]["schemas"]["org.kubeflow.trainer.v1alpha1.TrainJob"]["x-kubernetes-group-version-kind"]).toEqual([
      { group: "trainer.kubeflow.org", version: "v1alpha1", kind: "TrainJob" }
    ])
    expect((await call(served, "GET", "/openapi/v2")).status).toBe(404)
  })

  it("answers what it does not serve with Status bodies", async () => {
    const missing = await call(served, "GET", "/apis/apps/v1/namespaces/default/statefulsets")
    expect(missing.status).toBe(404)
    expect(json(missing)).toMatchObject({ kind: "Status", reason: "NotFound", code: 404 })
    expect(json(await call(served, "DELETE", jobsPath))).toMatchObject({ reason: "MethodNotAllowed", code: 405 })
    expect((await call(served, "POST", "/version", { body: "{}" })).status).toBe(405)
    const patch = await call(served, "PATCH", `${jobsPath}/x`, { body: "{}", headers: { "Content-Type": "text/plain" } })
    expect(json(patch)).toMatchObject({ reason: "UnsupportedMediaType", code: 415 })
  })

  it("refuses bodies over the limit with 413 and stays up", async () => {
    const big = JSON.stringify({ ...trainJob("big"), padding: "x".repeat(maxBodyBytes) })
    const answer = await call(served, "POST", jobsPath, { body: big })
    expect(answer.status).toBe(413)
    expect(json(answer)).toMatchObject({ reason: "RequestEntityTooLarge" })
    expect((await call(served, "GET", "/version")).status).toBe(200)
  })

  it("answers get and list as Tables when asked", async () => {
    expect((await call(served, "POST", jobsPath, { body: JSON.stringify(trainJob("tabled", { suspend: true })) })).status).toBe(201)
    served.simulator.advance(1000) // Trainer marks the job Suspended at its next step
    const one = json(await call(served, "GET", `${jobsPath}/tabled`, { headers: tableAccept }))
    expect(one).toMatchObject({ kind: "Table", apiVersion: "meta.k8s.io/v1" })
    expect(one["rows"][0]["cells"].slice(0, 2)).toEqual(["tabled", "Suspended"])
    const list = json(await call(served, "GET", jobsPath, { headers: tableAccept }))
    expect(list["rows"].map((r: { cells: Array<unknown> }) => r.cells[0])).toContain("tabled")
    const errors = await call(served, "GET", `${jobsPath}/absent`, { headers: tableAccept })
    expect(json(errors)).toMatchObject({ kind: "Status", code: 404 })
  })

  it("streams a watch as newline-delimited events and ends it after timeoutSeconds", async () => {
    expect((await call(served, "POST", jobsPath, { body: JSON.stringify(trainJob("streamed")) })).status).toBe(201)
    const answer = await call(served, "GET", `${jobsPath}?watch=true&fieldSelector=metadata.name%3Dstreamed&timeoutSeconds=1`, { headers: tableAccept })
    expect(answer.status).toBe(200)
    expect(answer.headers["transfer-encoding"]).toBe("chunked")
    const events = answer.body.trim().split("\n").map((line) => JSON.parse(line) as { type: string; object: Record<string, any> })
    expect(events[0]?.type).toBe("ADDED")
    expect(events[0]?.object).toMatchObject({ kind: "Table" })
    expect(events[0]?.object["rows"][0]["cells"][0]).toBe("streamed")
  })

  it("watches on ?watch=True, as Python's client asks, and ends a watch with a negative timeoutSeconds at once", async () => {
    expect((await call(served, "POST", jobsPath, { body: JSON.stringify(trainJob("pythonic")) })).status).toBe(201)
    // A negative timeout has passed already: the stream sends what it has and ends, as a real server's.
    const answer = await call(served, "GET", `${jobsPath}?watch=True&fieldSelector=metadata.name%3Dpythonic&timeoutSeconds=-1`)
    expect(answer.status).toBe(200)
    expect(answer.headers["transfer-encoding"]).toBe("chunked")
    const events = answer.body.trim().split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as { type: string; object: { metadata: { name: string } } })
    // The object as it is first; the served controllers may have written its status since, which a
    // stream that has not ended yet may also carry (a busy machine makes that likely).
    expect(events[0]?.type).toBe("ADDED")
    for (const event of events) {
      expect(["ADDED", "MODIFIED"]).toContain(event.type)
      expect(event.object.metadata.name).toBe("pythonic")
    }
  })

  it("sends the Warning header of a write that dropped unknown fields, and the strict refusal as a Status", async () => {
    const body = JSON.stringify({ ...trainJob("warned"), spec: { runtimeRef: { name: "torch-distributed" }, labels: { a: "b" } } })
    const strict = await call(served, "POST", `${jobsPath}?fieldValidation=Strict`, { body })
    expect(strict.status).toBe(400)
    expect(json(strict)).toMatchObject({ kind: "Status", reason: "BadRequest", message: expect.stringContaining('unknown field "spec.labels"') })
    const warned = await call(served, "POST", `${jobsPath}?fieldValidation=Warn`, { body })
    expect(warned.status).toBe(201)
    expect(warned.headers["warning"]).toBe('299 - "unknown field \\"spec.labels\\""')
    expect(json(warned)["spec"]["labels"]).toBeUndefined()
  })

  it("answers a watch from an expired resourceVersion 200 with one ERROR event (Status 410) and ends it", async () => {
    const sim = served.simulator
    sim.system.create("trainjobs", trainJob("churned"))
    for (let i = 0; i < 2 * changeLogCapacity + 1; i++) {
      const rv = String(sim.system.get("trainjobs", "default", "churned")?.metadata?.["resourceVersion"])
      sim.system.updateStatus("trainjobs", { ...trainJob("churned"), metadata: { name: "churned", namespace: "default", resourceVersion: rv }, status: { jobsStatus: [{ name: "node", active: i }] } })
    }
    // No timeoutSeconds: only the ERROR event can end this stream.
    const answer = await call(served, "GET", `${jobsPath}?watch=true&resourceVersion=1`)
    expect(answer.status).toBe(200)
    const events = answer.body.trim().split("\n").map((line) => JSON.parse(line) as { type: string; object: Record<string, any> })
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ type: "ERROR", object: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 } })
    expect(events[0]?.object["message"]).toMatch(/^too old resource version: 1 \(\d+\)$/)
  })
})

describe("closing the server", () => {
  it("ends requests held by a dropped answer and open watches", async () => {
    const served = await serve()
    served.simulator.setFaults([{ verb: "get", action: { type: "drop" } }])
    let dropped = false
    // The HTTP face serves through `serve` (answers it only serialises are not copied).
    const serveCall = served.simulator.serve.bind(served.simulator)
    served.simulator.serve = (request) => {
      const outcome = serveCall(request)
      if (outcome.kind === "unanswered") dropped = true
      return outcome
    }
    const held = call(served, "GET", `${jobsPath}/anything`).then(
      () => "answered",
      (error: Error) => error.message
    )
    let watchStarted = false
    const watching = call(served, "GET", `${jobsPath}?watch=1`, { onResponse: () => (watchStarted = true) }).then(
      (a) => `watch ended ${a.status}`,
      (error: Error) => error.message
    )
    // Closed once both are in progress on the server: the get held, the watch streaming.
    expect(await eventually(() => dropped && watchStarted)).toBe(true)
    await served.close()
    expect(await held).toBe("socket hang up")
    expect(await watching).toBe("aborted")
  })
})

describe("an answer cut off", () => {
  it("resets the connection at once, with no status line, after the call was applied", async () => {
    const served = await serve()
    const serveCall = served.simulator.serve.bind(served.simulator)
    served.simulator.serve = (request) => {
      const outcome = serveCall(request)
      return request.verb === "create" ? { kind: "unanswered", cut: true } : outcome
    }
    const body = JSON.stringify(trainJob("cut"))
    const answer = await call(served, "POST", jobsPath, { body }).then(
      () => "answered",
      (error: Error & { code?: string }) => error.code ?? error.message
    )
    expect(answer).toBe("ECONNRESET")
    expect(served.simulator.system.get("trainjobs", "default", "cut")).toBeDefined()
    await served.close()
  })
})
