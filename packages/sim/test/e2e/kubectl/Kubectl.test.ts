// The real kubectl (the installed dispatcher picks its version from our /version) against the HTTP face.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { type Served, serve } from "../../HttpFixture.ts"
import { kubectl, kubectlUntil, ok } from "./KubectlFixture.ts"

const manifest = (name: string, labels: Record<string, string> = {}, suspend = true): string => `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ${name}
  labels: ${JSON.stringify(labels)}
spec:
  runtimeRef:
    name: torch-distributed
  suspend: ${suspend}
`

describe("kubectl against the HTTP face", () => {
  let served: Served

  beforeAll(async () => {
    // Runs end half a second (of real time, through the ticker) after they start.
    served = await serve({ controllers: { trainer: { runTimeMs: 500 } } })
  })
  afterAll(async () => served.close())

  it("applies a manifest, then re-applies it as a merge patch", async () => {
    const file = join(served.dir, "job.yaml")
    writeFileSync(file, manifest("applied"))
    expect(ok(await kubectl(served, "apply", "-f", file))).toContain("trainjob.trainer.kubeflow.org/applied created")
    writeFileSync(file, manifest("applied", { team: "a" }))
    expect(ok(await kubectl(served, "apply", "-f", file))).toContain("trainjob.trainer.kubeflow.org/applied configured")
    const stored = parse(ok(await kubectl(served, "get", "trainjob", "applied", "-o", "yaml"))) as Record<string, any>
    expect(stored["metadata"]["labels"]).toEqual({ team: "a" })
    expect(stored["spec"]["runtimeRef"]["name"]).toBe("torch-distributed")
    expect(stored["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]).toContain('"team":"a"')
  })

  it("refuses fields the CRD does not define, naming each, unless told to only warn", async () => {
    const file = join(served.dir, "unknown.yaml")
    writeFileSync(file, `${manifest("unknown")}  labels:\n    a: b\n  trainer:\n    image: example.org/train:1\n    bogusField: 1\n`)
    const strict = await kubectl(served, "apply", "-f", file)
    expect(strict.code).not.toBe(0)
    expect(strict.stderr).toContain('strict decoding error: unknown field "spec.labels", unknown field "spec.trainer.bogusField"')
    expect((await kubectl(served, "get", "trainjob", "unknown")).stderr).toContain("NotFound")
    const warned = await kubectl(served, "create", "--validate=warn", "-f", file)
    expect(warned.code).toBe(0)
    expect(warned.stderr).toContain('unknown field "spec.labels"')
    expect(warned.stderr).toContain('unknown field "spec.trainer.bogusField"')
    const stored = parse(ok(await kubectl(served, "get", "trainjob", "unknown", "-o", "yaml"))) as Record<string, any>
    expect(stored["spec"]["labels"]).toBeUndefined()
    expect(stored["spec"]["trainer"]).toEqual({ image: "example.org/train:1" })
  })

  it("prints TrainJob columns from the server's Table", async () => {
    const file = join(served.dir, "columns.yaml")
    writeFileSync(file, manifest("columns"))
    ok(await kubectl(served, "create", "-f", file))
    const lines = ok(await kubectl(served, "get", "trainjobs")).trim().split("\n")
    expect(lines[0]?.split(/\s+/)).toEqual(["NAME", "STATE", "AGE"])
    const row = lines.find((l) => l.startsWith("columns "))?.split(/\s+/)
    expect(row?.[1]).toBe("Suspended")
    expect(row?.[2]).toMatch(/^\d+s$/)
  })

  it("prints NAME and AGE for other kinds, and finds resources by short name", async () => {
    const lines = ok(await kubectl(served, "get", "clustertrainingruntimes")).trim().split("\n")
    expect(lines[0]?.split(/\s+/)).toEqual(["NAME", "AGE"])
    expect(lines.some((l) => l.startsWith("torch-distributed "))).toBe(true)
    expect(ok(await kubectl(served, "get", "ns", "default", "-o", "name"))).toBe("namespace/default\n")
  })

  it("reports the server's refusal of a strategic merge patch", async () => {
    const file = join(served.dir, "smp.yaml")
    writeFileSync(file, manifest("smp"))
    ok(await kubectl(served, "create", "-f", file))
    const run = await kubectl(served, "patch", "trainjob", "smp", "-p", '{"metadata":{"labels":{"x":"y"}}}')
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain("unknown format")
    ok(await kubectl(served, "patch", "trainjob", "smp", "--type=merge", "-p", '{"metadata":{"labels":{"x":"y"}}}'))
  })

  it("deletes, and waits for a deletion held by a finalizer", async () => {
    const file = join(served.dir, "doomed.yaml")
    writeFileSync(file, manifest("doomed").replace("metadata:\n", "metadata:\n  finalizers: [example.org/hold]\n"))
    ok(await kubectl(served, "create", "-f", file))
    expect(ok(await kubectl(served, "delete", "trainjob", "doomed", "--wait=false"))).toContain('trainjob.trainer.kubeflow.org "doomed" deleted')
    const held = parse(ok(await kubectl(served, "get", "trainjob", "doomed", "-o", "yaml"))) as Record<string, any>
    expect(held["metadata"]["deletionTimestamp"]).toEqual(expect.any(String))
    const waiting = kubectlUntil(served, /watch=true.* 200 OK/, "wait", "--for=delete", "trainjob/doomed", "--timeout=20s")
    expect(await waiting.started).toBe(true)
    ok(await kubectl(served, "patch", "trainjob", "doomed", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]'))
    const waited = await waiting.done
    expect(waited.code).toBe(0)
    expect(waited.stdout).toBe("trainjob.trainer.kubeflow.org/doomed condition met\n")
    const gone = await kubectl(served, "get", "trainjob", "doomed")
    expect(gone.code).not.toBe(0)
    expect(gone.stderr).toContain("NotFound")
  })

  it("prints rows as they change with get --watch", async () => {
    const watching = kubectlUntil(served, /watch=true.* 200 OK/, "get", "trainjobs", "--watch", "--output-watch-events")
    try {
      expect(await watching.started).toBe(true)
      const file = join(served.dir, "watched.yaml")
      writeFileSync(file, manifest("watched"))
      ok(await kubectl(served, "create", "-f", file))
      let seen = false
      for (const end = Date.now() + 60_000; Date.now() < end && !seen; ) {
        seen = /ADDED\s+watched\s+/.test(watching.output())
        if (!seen) await new Promise((r) => setTimeout(r, 25))
      }
      expect(watching.output().split("\n")[0]?.split(/\s+/)).toEqual(["EVENT", "NAME", "STATE", "AGE"])
      expect(seen).toBe(true)
    } finally {
      watching.stop()
      await watching.done
    }
  })

  it("waits for a started job to complete, watching its conditions", async () => {
    const file = join(served.dir, "runs.yaml")
    writeFileSync(file, manifest("runs", {}, false))
    ok(await kubectl(served, "apply", "-f", file))
    expect(ok(await kubectl(served, "wait", "--for=condition=Complete", "trainjob/runs", "--timeout=20s"))).toBe(
      "trainjob.trainer.kubeflow.org/runs condition met\n"
    )
    const row = ok(await kubectl(served, "get", "trainjob", "runs", "--no-headers")).trim().split(/\s+/)
    expect(row[1]).toBe("Complete")
  })
})

describe("kubectl against a Kueue-mode HTTP face", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ controllers: { kueue: { queues: { "user-queue": { clusterQueue: "cluster-queue" } } } } })
  })
  afterAll(async () => served.close())

  it("prints Kueue's Workload columns for the workload of a queued job", async () => {
    const file = join(served.dir, "queued.yaml")
    writeFileSync(file, manifest("queued", { "kueue.x-k8s.io/queue-name": "user-queue" }, false))
    ok(await kubectl(served, "create", "-f", file))
    served.simulator.advance(1000) // so the Workload exists before `wait --all` lists workloads
    const waiting = await kubectl(served, "wait", "--for=condition=Admitted", "workloads", "--all", "--timeout=20s")
    expect(waiting.code).toBe(0)
    const lines = ok(await kubectl(served, "get", "workloads")).trim().split("\n")
    expect(lines[0]?.split(/\s{2,}/)).toEqual(["NAME", "QUEUE", "RESERVED IN", "ADMITTED", "FINISHED", "AGE"])
    const row = lines[1]?.split(/\s+/)
    expect(row?.[0]).toMatch(/^trainjob-queued-[0-9a-f]{5}$/)
    expect(row?.slice(1, 4)).toEqual(["user-queue", "cluster-queue", "True"])
  })
})
