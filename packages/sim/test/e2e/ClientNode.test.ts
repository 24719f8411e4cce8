// The real @kubernetes/client-node against the HTTP face: what a client of a real API server sees.
import {
  ApiException,
  AuthorizationV1Api,
  type ConfigurationOptions,
  CustomObjectsApi,
  KubeConfig,
  Observable,
  PatchStrategy,
  type RequestContext,
  type ResponseContext,
  Watch,
  setHeaderOptions
} from "@kubernetes/client-node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { KubeObject } from "../../src/Api.ts"
import { type Served, eventually, serve, trainJob } from "../HttpFixture.ts"

const trainer = { group: "trainer.kubeflow.org", version: "v1alpha1", namespace: "default" }
const jobs = { ...trainer, plural: "trainjobs" }
const runtimes = { ...trainer, plural: "trainingruntimes" }

// client-node has no default timeout: a request the server never answers would hang forever.
const timeout = (ms: number): ConfigurationOptions => ({
  middleware: [
    {
      pre: (context: RequestContext) => {
        context.setSignal(AbortSignal.timeout(ms))
        return new Observable(Promise.resolve(context))
      },
      post: (response: ResponseContext) => new Observable(Promise.resolve(response))
    }
  ],
  middlewareMergeStrategy: "append"
})

const clientFor = (served: Served, token: string): CustomObjectsApi => {
  const kc = new KubeConfig()
  kc.loadFromString(kubeconfigText(served, token))
  return kc.makeApiClient(CustomObjectsApi)
}

const kubeconfigText = (served: Served, token: string): string =>
  `apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "${served.server.url}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: "${token}"}}]
contexts: [{name: c, context: {cluster: sim, user: u, namespace: default}}]
current-context: c
`

/** The ApiException of a failed call, with its Status body parsed. */
const failureOf = async (call: Promise<unknown>): Promise<{ code: number; body: Record<string, any>; headers: Record<string, string> }> => {
  try {
    await call
  } catch (error) {
    if (error instanceof ApiException) {
      return { code: error.code, body: JSON.parse(String(error.body)) as Record<string, any>, headers: error.headers }
    }
    throw error
  }
  throw new Error("the call succeeded")
}

/** The transport error of a call that got no HTTP answer. */
const transportErrorOf = async (call: Promise<unknown>): Promise<Error & { code?: string }> => {
  try {
    await call
  } catch (error) {
    if (error instanceof ApiException) throw new Error(`got an HTTP answer ${error.code}`)
    return error as Error & { code?: string }
  }
  throw new Error("the call succeeded")
}

describe("client-node against the HTTP face", () => {
  let served: Served
  let api: CustomObjectsApi
  let reader: CustomObjectsApi

  beforeAll(async () => {
    served = await serve({ auth: { tokens: { admin: "*", reader: ["get", "list", "watch"] } }, controllers: {} }, "admin")
    api = clientFor(served, "admin")
    reader = clientFor(served, "reader")
  })
  afterAll(async () => served.close())

  it("creates, gets, lists and deletes", async () => {
    const created = (await api.createNamespacedCustomObject({ ...jobs, body: trainJob("crud") })) as KubeObject
    expect(created.metadata).toMatchObject({ name: "crud", namespace: "default" })
    expect(created.metadata?.["uid"]).toEqual(expect.any(String))
    expect(created.metadata?.["resourceVersion"]).toEqual(expect.any(String))
    const got = (await api.getNamespacedCustomObject({ ...jobs, name: "crud" })) as KubeObject
    expect(got.metadata?.["uid"]).toBe(created.metadata?.["uid"])
    const list = (await api.listNamespacedCustomObject({ ...jobs, fieldSelector: "metadata.name=crud" })) as { items: Array<KubeObject> }
    expect(list.items.map((i) => i.metadata?.["name"])).toEqual(["crud"])
    await api.deleteNamespacedCustomObject({ ...jobs, name: "crud" })
    expect((await failureOf(api.getNamespacedCustomObject({ ...jobs, name: "crud" }))).code).toBe(404)
  })

  it("answers 409, 404 and 422 with Status bodies", async () => {
    await api.createNamespacedCustomObject({ ...jobs, body: trainJob("twice") })
    const conflict = await failureOf(api.createNamespacedCustomObject({ ...jobs, body: trainJob("twice") }))
    expect(conflict.code).toBe(409)
    expect(conflict.body).toMatchObject({ kind: "Status", status: "Failure", reason: "AlreadyExists", code: 409, details: { name: "twice", kind: "trainjobs" } })

    const missing = await failureOf(api.getNamespacedCustomObject({ ...jobs, name: "nowhere" }))
    expect(missing.body).toMatchObject({ reason: "NotFound", code: 404, details: { name: "nowhere", kind: "trainjobs" } })

    const invalid = await failureOf(api.createNamespacedCustomObject({ ...jobs, body: trainJob("Not_A_Name") }))
    expect(invalid.code).toBe(422)
    expect(invalid.body).toMatchObject({ reason: "Invalid", details: { kind: "TrainJob" } })
    expect(invalid.body["details"]["causes"].length).toBeGreaterThan(0)
  })

  it("refuses writes to a read-only token with 403 and lets it read", async () => {
    const forbidden = await failureOf(reader.createNamespacedCustomObject({ ...jobs, body: trainJob("by-reader") }))
    expect(forbidden.code).toBe(403)
    expect(forbidden.body).toMatchObject({ reason: "Forbidden", code: 403 })
    await reader.listNamespacedCustomObject(jobs)
  })

  it("answers a self access review from the caller's token", async () => {
    const review = (token: string, verb: string) => {
      const kc = new KubeConfig()
      kc.loadFromString(kubeconfigText(served, token))
      return kc.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
        body: { spec: { resourceAttributes: { verb, group: "trainer.kubeflow.org", resource: "trainjobs", namespace: "default" } } }
      })
    }
    expect((await review("reader", "create")).status).toMatchObject({ allowed: false })
    expect((await review("reader", "watch")).status).toMatchObject({ allowed: true })
    expect((await review("admin", "create")).status).toMatchObject({ allowed: true })
    await expect(review("stranger", "get")).rejects.toMatchObject({ code: 401 })
  })

  it("keeps optimistic concurrency on update", async () => {
    // A suspended job that the Trainer controller has already marked Suspended stays still, so the only
    // writes to it below are the test's own: a live controller would otherwise make any version stale.
    await api.createNamespacedCustomObject({ ...jobs, body: trainJob("occ", { suspend: true }) })
    const settled = async () => {
      const job = (await api.getNamespacedCustomObject({ ...jobs, name: "occ" })) as { status?: { conditions?: Array<{ type: string }> } }
      return (job.status?.conditions ?? []).some((c) => c.type === "Suspended")
    }
    expect(await eventually(settled)).toBe(true)
    const created = (await api.getNamespacedCustomObject({ ...jobs, name: "occ" })) as KubeObject
    const patched = (await api.patchNamespacedCustomObject(
      { ...jobs, name: "occ", body: { metadata: { labels: { touched: "yes" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch)
    )) as KubeObject
    expect(patched.metadata?.["resourceVersion"]).not.toBe(created.metadata?.["resourceVersion"])
    const stale = await failureOf(api.replaceNamespacedCustomObject({ ...jobs, name: "occ", body: created }))
    expect(stale.code).toBe(409)
    expect(stale.body).toMatchObject({ reason: "Conflict" })
    const { resourceVersion: _dropped, ...withoutVersion } = created.metadata ?? {}
    const missing = await failureOf(api.replaceNamespacedCustomObject({ ...jobs, name: "occ", body: { ...created, metadata: withoutVersion } }))
    expect(missing.code).toBe(422)
    const current = (await api.replaceNamespacedCustomObject({ ...jobs, name: "occ", body: patched })) as KubeObject
    expect(current.metadata?.["labels"]).toEqual({ touched: "yes" })
  })

  it("applies JSON patches and refuses strategic merge patches on custom resources", async () => {
    await api.createNamespacedCustomObject({ ...jobs, body: trainJob("patchy") })
    const patched = (await api.patchNamespacedCustomObject({
      ...jobs,
      name: "patchy",
      body: [{ op: "add", path: "/metadata/labels", value: { team: "a" } }]
    })) as KubeObject
    expect(patched.metadata?.["labels"]).toEqual({ team: "a" })
    const strategic = await failureOf(
      api.patchNamespacedCustomObject({ ...jobs, name: "patchy", body: { metadata: { labels: { team: "b" } } } }, setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch))
    )
    expect(strategic.code).toBe(415)
  })

  it("lists by label, and in pages with limit and continue", async () => {
    for (const name of ["page-a", "page-b", "page-c"]) {
      await api.createNamespacedCustomObject({ ...jobs, body: trainJob(name, { labels: { batch: "pages" } }) })
    }
    const first = (await api.listNamespacedCustomObject({ ...jobs, labelSelector: "batch=pages", limit: 2 })) as {
      items: Array<KubeObject>
      metadata: { continue?: string }
    }
    expect(first.items).toHaveLength(2)
    expect(first.metadata.continue).toEqual(expect.any(String))
    const rest = (await api.listNamespacedCustomObject({ ...jobs, labelSelector: "batch=pages", limit: 2, _continue: first.metadata.continue ?? "" })) as {
      items: Array<KubeObject>
    }
    expect([...first.items, ...rest.items].map((i) => i.metadata?.["name"]).sort()).toEqual(["page-a", "page-b", "page-c"])
  })

  it("stores nothing on dryRun=All", async () => {
    const dry = (await api.createNamespacedCustomObject({ ...jobs, body: trainJob("dry"), dryRun: "All" })) as KubeObject
    expect(dry.metadata?.["name"]).toBe("dry")
    expect((await failureOf(api.getNamespacedCustomObject({ ...jobs, name: "dry" }))).code).toBe(404)
  })

  it("collects dependents of a deleted owner as the clock moves", async () => {
    const owner = (await api.createNamespacedCustomObject({ ...jobs, body: trainJob("owner") })) as KubeObject
    const ownerRef = { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: "owner", uid: owner.metadata?.["uid"] }
    const dependent = { ...runtimeCopy("owned"), metadata: { name: "owned", ownerReferences: [ownerRef] } }
    await api.createNamespacedCustomObject({ ...runtimes, body: dependent })
    await api.deleteNamespacedCustomObject({ ...jobs, name: "owner", propagationPolicy: "Background" })
    const gone = await eventually(async () => (await api.getNamespacedCustomObject({ ...runtimes, name: "owned" }).then(() => 200, (e: ApiException<unknown>) => e.code)) === 404)
    expect(gone).toBe(true)
  })

  it("streams watch events until the client stops", async () => {
    const events: Array<[string, string]> = []
    const ended = new Promise<unknown>((resolve) => {
      void new Watch(kubeconfig(served)).watch(
        "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs",
        { labelSelector: "watched=yes" },
        (type, object: KubeObject) => events.push([type, String(object.metadata?.["name"])]),
        resolve
      ).then((controller) => (abort = controller))
    })
    let abort: AbortController | undefined
    expect(await eventually(() => abort !== undefined)).toBe(true)
    await api.createNamespacedCustomObject({ ...jobs, body: trainJob("watched", { labels: { watched: "yes" } }) })
    await api.deleteNamespacedCustomObject({ ...jobs, name: "watched" })
    expect(await eventually(() => events.some(([type]) => type === "DELETED"))).toBe(true)
    expect(events[0]).toEqual(["ADDED", "watched"])
    abort?.abort()
    await ended
  })

  describe("faults", () => {
    it("the 2nd create is applied on the server but its answer is lost", async () => {
      served.simulator.setFaults([{ verb: "create", resource: "trainjobs", nth: 2, action: { type: "drop" } }])
      await api.createNamespacedCustomObject({ ...jobs, body: trainJob("first") }, timeout(30_000))
      const lost = await transportErrorOf(api.createNamespacedCustomObject({ ...jobs, body: trainJob("second") }, timeout(300)))
      expect(lost.name).toBe("AbortError")
      const stored = (await api.getNamespacedCustomObject({ ...jobs, name: "second" })) as KubeObject
      expect(stored.metadata?.["name"]).toBe("second")
      served.simulator.setFaults([])
    })

    it("a refused call is answered 503 connection refused at once, and applies nothing", async () => {
      served.simulator.setFaults([{ verb: "create", resource: "trainjobs", action: { type: "refuse" } }])
      const refused = await failureOf(api.createNamespacedCustomObject({ ...jobs, body: trainJob("refused") }, timeout(30_000)))
      expect(refused.code).toBe(503)
      expect(refused.body).toMatchObject({ kind: "Status", reason: "ServiceUnavailable", message: expect.stringContaining("connection refused") })
      served.simulator.setFaults([])
      expect((await failureOf(api.getNamespacedCustomObject({ ...jobs, name: "refused" }))).code).toBe(404)
    })

    it("answers a scripted 429 with Retry-After, and delays without failing", async () => {
      served.simulator.setFaults([
        { verb: "get", resource: "trainjobs", nth: 1, action: { type: "status", code: 429, retryAfterSeconds: 3 } },
        { verb: "list", resource: "trainjobs", action: { type: "delay", ms: 50 } }
      ])
      const throttled = await failureOf(api.getNamespacedCustomObject({ ...jobs, name: "first" }))
      expect(throttled.code).toBe(429)
      expect(throttled.headers["retry-after"]).toBe("3")
      const list = (await api.listNamespacedCustomObject(jobs, timeout(30_000))) as { items: Array<unknown> }
      expect(list.items.length).toBeGreaterThan(0)
      served.simulator.setFaults([])
    })
  })
})

const runtimeCopy = (name: string): KubeObject => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainingRuntime",
  metadata: { name },
  spec: {
    mlPolicy: { numNodes: 1 },
    template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { containers: [{ name: "node", image: "example.org/train:1" }] } } } } }] } }
  }
})

const kubeconfig = (served: Served): KubeConfig => {
  const kc = new KubeConfig()
  kc.loadFromString(kubeconfigText(served, "admin"))
  return kc
}
