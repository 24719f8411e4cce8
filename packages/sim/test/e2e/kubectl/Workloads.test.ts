// The real kubectl and client-node against a TrainJob's pods, Jobs, JobSet, Events and logs served
// over HTTP, the clock following real time.
import { CoreV1Api, KubeConfig, Log, Watch } from "@kubernetes/client-node"
import { PassThrough } from "node:stream"
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { KubeObject } from "../../../src/Api.ts"
import { type Served, eventually, serve, trainJob } from "../../HttpFixture.ts"
import { kubectl, kubectlUntil, ok } from "./KubectlFixture.ts"

const podsOf = (served: Served, jobSet: string): ReadonlyArray<KubeObject> =>
  served.simulator.system.list("pods", "default", `jobset.sigs.k8s.io/jobset-name=${jobSet}`)
const phase = (pod: KubeObject | undefined): unknown => (pod?.["status"] as Record<string, unknown> | undefined)?.["phase"]
const nameOf = (pod: KubeObject | undefined): string => String(pod?.metadata?.["name"] ?? "")
const header = (output: string): ReadonlyArray<string> => (output.split("\n")[0] ?? "").trim().split(/\s{2,}/)

const start = (served: Served, name: string): void => {
  served.simulator.system.create("trainjobs", { ...trainJob(name), spec: { runtimeRef: { name: "torch-distributed" }, trainer: { numNodes: 2, command: ["python", "train.py"] } } })
}

const running = async (served: Served, jobSet: string): Promise<KubeObject> => {
  expect(await eventually(() => phase(podsOf(served, jobSet)[0]) === "Running")).toBe(true)
  return podsOf(served, jobSet)[0] as KubeObject
}

describe("kubectl and client-node against a TrainJob's pods", () => {
  let served: Served

  beforeAll(async () => {
    // "long" outlives every test; the others end 3 s (of real time, through the ticker) after they start.
    served = await serve({ controllers: { trainer: { runTimeMs: 3000, outcomes: [{ name: "long", result: "Complete", afterMs: 600_000 }] } } })
    start(served, "long")
  })
  afterAll(async () => served.close())

  it("gets pods, jobs and jobsets with the real server's columns", async () => {
    await running(served, "long")
    const pods = ok(await kubectl(served, "get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=long"))
    expect(header(pods)).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
    const rows = pods.trim().split("\n").slice(1).map((line) => line.split(/\s+/))
    expect(rows.map((row) => row.slice(0, 4))).toEqual([
      [expect.stringMatching(/^long-node-0-0-[a-z0-9]{5}$/), "1/1", "Running", "0"],
      [expect.stringMatching(/^long-node-0-1-[a-z0-9]{5}$/), "1/1", "Running", "0"]
    ])
    const wide = ok(await kubectl(served, "get", "pods", "-o", "wide", "-l", "jobset.sigs.k8s.io/jobset-name=long"))
    expect(header(wide)).toEqual(["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"])
    expect(header(ok(await kubectl(served, "get", "jobs")))).toEqual(["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"])
    expect(ok(await kubectl(served, "get", "job", "long-node-0", "--no-headers")).trim().split(/\s+/).slice(0, 3)).toEqual(["long-node-0", "Running", "0/2"])
    expect(header(ok(await kubectl(served, "get", "jobsets")))).toEqual(["NAME", "TERMINALSTATE", "RESTARTS", "COMPLETED", "SUSPENDED", "AGE"])
  })

  it("prints a pod's log, its tail, and follows it until the container exits", async () => {
    const pod = nameOf(await running(served, "long"))
    const log = ok(await kubectl(served, "logs", pod))
    expect(log.split("\n").slice(0, 2)).toEqual(["[sim] starting container node (image example.org/train:1)", "+ python train.py"])
    expect(ok(await kubectl(served, "logs", pod, "-c", "node", "--tail=1")).trim().split("\n")).toHaveLength(1)
    const stamped = ok(await kubectl(served, "logs", pod, "--since=1h", "--timestamps"))
    expect(stamped.split("\n")[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \[sim\] starting container node/)
    expect(ok(await kubectl(served, "logs", pod, "--since-time=2999-01-01T00:00:00Z"))).toBe("")
    const missing = await kubectl(served, "logs", pod, "-c", "nope")
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain(`container nope is not valid for pod ${pod}`)
    const previous = await kubectl(served, "logs", pod, "--previous")
    expect(previous.stderr).toContain(`previous terminated container "node" in pod "${pod}" not found`)

    start(served, "short")
    const short = nameOf(await running(served, "short"))
    const following = kubectlUntil(served, /log\?.*follow=true.* 200 OK/, "logs", "-f", short)
    expect(await following.started).toBe(true)
    const done = await following.done
    expect(done.code).toBe(0)
    expect(done.stdout.trim().split("\n").at(-1)).toBe("[sim] exited with code 0")
  })

  it("reads follow, timestamps and previous as Python's client spells them (True), following the log to its end", async () => {
    const pod = nameOf(await running(served, "long"))
    const at = (query: string) => fetch(`${served.server.url}/api/v1/namespaces/default/pods/${pod}/log${query}`)
    expect((await at("?previous=True")).status).toBe(400)
    expect((await (await at("?previous=False&timestamps=True&tailLines=1")).text())).toMatch(/^\d{4}-\d\d-\d\dT[^ ]+Z /)
    start(served, "python-follow")
    const followed = nameOf(await running(served, "python-follow"))
    const answer = await fetch(`${served.server.url}/api/v1/namespaces/default/pods/${followed}/log?follow=True`)
    expect(answer.status).toBe(200)
    // Read to the end: the answer ends only once the container has exited.
    expect((await answer.text()).trim().split("\n").at(-1)).toBe("[sim] exited with code 0")
  })

  it("answers bad log requests with the API server's 4xx, never a 5xx", async () => {
    const pod = nameOf(await running(served, "long"))
    const at = (query: string, method = "GET") => fetch(`${served.server.url}/api/v1/namespaces/default/pods/${pod}/log${query}`, { method })
    const bad = await at("?tailLines=-1&limitBytes=0")
    expect(bad.status).toBe(422)
    expect(((await bad.json()) as { message: string }).message).toBe(`PodLogOptions "${pod}" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0`)
    // A value the query conversion cannot read is a 400, before any validation.
    const unreadable = await at("?tailLines=abc&sinceTime=noon")
    expect(unreadable.status).toBe(400)
    expect(((await unreadable.json()) as { message: string }).message).toBe(
      'tailLines: strconv.ParseInt: parsing "abc": invalid syntax; sinceTime: parsing time "noon" as "2006-01-02T15:04:05Z07:00": not an RFC 3339 time'
    )
    expect((await at("?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z")).status).toBe(422)
    expect((await at("?container=x")).status).toBe(400)
    expect((await at("", "POST")).status).toBe(405)
    expect((await fetch(`${served.server.url}/api/v1/namespaces/default/pods/nope/log`)).status).toBe(404)
    const limited = await at("?limitBytes=5")
    expect([limited.status, await limited.text()]).toEqual([200, "[sim]"])
  })

  it("describes a pod with its events, and lists events with the real columns", async () => {
    const pod = nameOf(await running(served, "long"))
    const described = ok(await kubectl(served, "describe", "pod", pod))
    expect(described).toMatch(/Controlled By:\s+Job\/long-node-0/)
    expect(described).toMatch(/Events:[\s\S]*Scheduled[\s\S]*Successfully assigned default\/.* to sim-node[\s\S]*Started/)
    const events = ok(await kubectl(served, "get", "events"))
    expect(header(events)).toEqual(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"])
    expect(events).toMatch(new RegExp(`Normal\\s+SuccessfulCreate\\s+job/long-node-0\\s+Created pod: ${pod.replace(/-0-[a-z0-9]{5}$/, "")}`))
    expect(ok(await kubectl(served, "describe", "trainjob", "long"))).toMatch(/Name:\s+long/)
  })

  it("reads and follows a log with client-node, and watches pods", async () => {
    const kc = new KubeConfig()
    kc.loadFromString(readFileSync(served.kubeconfigPath, "utf8"))
    const pod = nameOf(await running(served, "long"))
    const text = await kc.makeApiClient(CoreV1Api).readNamespacedPodLog({ name: pod, namespace: "default", tailLines: 2 })
    expect(text.trim().split("\n")).toHaveLength(2)
    const stream = new PassThrough()
    let received = ""
    stream.on("data", (chunk: Buffer) => (received += chunk.toString()))
    const request = await new Log(kc).log("default", pod, "node", stream, { follow: true })
    expect(await eventually(() => received.includes("+ python train.py"))).toBe(true)
    request.abort()

    const seen: Array<string> = []
    let watch: AbortController | undefined
    void new Watch(kc).watch("/api/v1/namespaces/default/pods", { labelSelector: "jobset.sigs.k8s.io/jobset-name=long" }, (type, object: KubeObject) => seen.push(`${type} ${nameOf(object)}`), () => {}).then((c) => (watch = c))
    expect(await eventually(() => seen.length >= 2)).toBe(true)
    watch?.abort()
    expect(seen.every((line) => line.startsWith("ADDED long-node-0-"))).toBe(true)
  })

  it("removes the JobSet, Jobs and pods when the TrainJob is deleted", async () => {
    ok(await kubectl(served, "delete", "trainjob", "long"))
    const gone = () => ["jobsets", "jobs", "pods"].every((r) => served.simulator.system.list(r, "default").every((o) => !String(o.metadata?.["name"]).startsWith("long")))
    expect(await eventually(gone)).toBe(true)
  })
})

describe("kubectl against Kueue's queue objects", () => {
  let served: Served

  beforeAll(async () => {
    served = await serve({ controllers: { trainer: { runTimeMs: 600_000 }, kueue: { seedQueues: [{ localQueue: "user-queue", clusterQueue: "cluster-queue", quota: { cpu: "8", memory: "32Gi", gpus: 4 } }] } } })
  })
  afterAll(async () => served.close())

  it("gets localqueues and clusterqueues with Kueue's columns, and a Workload reserved in the ClusterQueue", async () => {
    served.simulator.system.create("trainjobs", { ...trainJob("queued", { labels: { "kueue.x-k8s.io/queue-name": "user-queue" } }) })
    const reserved = () => served.simulator.system.list("workloads").some((w) => (w["status"] as { admission?: { clusterQueue?: string } } | undefined)?.admission?.clusterQueue === "cluster-queue")
    expect(await eventually(reserved)).toBe(true)
    const both = ok(await kubectl(served, "get", "localqueues,clusterqueues"))
    const [local, cluster] = both.trim().split(/\n\s*\n/)
    expect(header(local ?? "")).toEqual(["NAME", "CLUSTERQUEUE", "PENDING WORKLOADS", "ADMITTED WORKLOADS", "AGE"])
    expect((local ?? "").split("\n")[1]?.split(/\s+/).slice(0, 4)).toEqual(["localqueue.kueue.x-k8s.io/user-queue", "cluster-queue", "0", "1"])
    expect(header(cluster ?? "")).toEqual(["NAME", "COHORT", "PENDING WORKLOADS", "ADMITTED WORKLOADS", "AGE"])
    const workloads = ok(await kubectl(served, "get", "workloads", "--no-headers")).trim().split(/\s+/)
    expect(workloads.slice(1, 3)).toEqual(["user-queue", "cluster-queue"])
  })
})
