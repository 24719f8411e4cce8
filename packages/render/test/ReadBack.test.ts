import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { compareReadBack, renderStart, type BackendConfig, type KubeObject } from "../src/index.ts"
import { configArb, exampleRequest, plainConfig, requestArb, runtimeOf } from "./Generators.ts"

type Obj = Record<string, any>
const render = (request = exampleRequest, config: BackendConfig = plainConfig): KubeObject => {
  const r = renderStart(request, config, runtimeOf())
  if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
  return r.success.trainJob
}
const copy = (o: KubeObject): Obj => structuredClone(o) as Obj

// What a server (API server, Trainer's webhook, Kueue) adds to a TrainJob without changing what dispatch wrote.
const serverView = (written: KubeObject, config: BackendConfig): Obj => {
  const read = copy(written)
  read["metadata"] = { ...read["metadata"], uid: "u-1", resourceVersion: "7", generation: 1, creationTimestamp: "2026-01-01T00:00:00Z", managedFields: [{ manager: "x" }] }
  read["metadata"]["labels"] = { ...read["metadata"]["labels"], "team.example/owner": "ml" }
  read["metadata"]["annotations"] = { ...read["metadata"]["annotations"], "kubectl.kubernetes.io/last-applied": "{}" }
  read["spec"]["managedBy"] = "trainer.kubeflow.org/trainjob-controller"
  read["spec"]["runtimePatches"][0]["time"] = "2026-01-01T00:00:00Z"
  read["spec"]["runtimePatches"].push({ manager: "kueue.x-k8s.io/manager", trainingRuntimeSpec: {} })
  if (config.mode === "kueue") read["spec"]["suspend"] = true
  read["status"] = { conditions: [{ type: "Suspended", status: "True" }] }
  return read
}

// Each mutation changes one compared field and must be reported under that field's name.
const MUTATIONS: ReadonlyArray<readonly [string, (o: Obj, c: BackendConfig) => void]> = [
  ["metadata.labels", (o, c) => { o["metadata"]["labels"][`${c.labelDomain}/job-id`] = "00000000000000000000000000" }],
  ["metadata.labels", (o, c) => { delete o["metadata"]["labels"][`${c.labelDomain}/submission`] }],
  ["metadata.labels", (o, c) => { o["metadata"]["labels"][`${c.labelDomain}/extra`] = "x" }],
  ["metadata.annotations", (o, c) => { o["metadata"]["annotations"][`${c.labelDomain}/comment`] = "other" }],
  ["metadata.annotations", (o, c) => { delete o["metadata"]["annotations"][`${c.labelDomain}/attempt-token`] }],
  ["metadata.annotations", (o) => { o["metadata"]["annotations"]["kueue.x-k8s.io/admission-gated-by"] = "someone/else" }],
  ["spec.runtimeRef", (o) => { o["spec"]["runtimeRef"]["name"] = "other" }],
  ["spec.runtimeRef", (o) => { o["spec"]["runtimeRef"]["kind"] = "ClusterTrainingRuntime" }],
  ["spec.trainer.image", (o) => { o["spec"]["trainer"]["image"] = "evil:1" }],
  ["spec.trainer.command", (o) => { o["spec"]["trainer"]["command"].push("--more") }],
  ["spec.trainer.env", (o) => { o["spec"]["trainer"]["env"][0]["value"] = "changed" }],
  ["spec.trainer.numNodes", (o) => { o["spec"]["trainer"]["numNodes"] += 1 }],
  ["spec.trainer.args", (o) => { o["spec"]["trainer"]["args"] = ["x"] }],
  ["spec.activeDeadlineSeconds", (o) => { o["spec"]["activeDeadlineSeconds"] = (o["spec"]["activeDeadlineSeconds"] ?? 0) + 1 }],
  ["spec.runtimePatches", (o) => { o["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]["name"] = "x" }],
  ["spec.runtimePatches", (o) => { o["spec"]["runtimePatches"].shift() }],
  ["spec.managedBy", (o) => { o["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue" }]
]

const pathOfSuspend = (object: unknown): unknown => ((object as { spec?: { suspend?: unknown } }).spec ?? {}).suspend

describe("compareReadBack", () => {
  test.prop([requestArb(), configArb])("the rendered TrainJob against itself, or as a server returns it, has no difference", (request, config) => {
    const written = render(request, config)
    // In Kueue mode dispatch never writes spec.suspend; only Kueue's webhook (in serverView) sets it.
    expect(compareReadBack(written, written, config).map((d) => d.split(":")[0])).toEqual(config.mode === "kueue" ? ["spec.suspend"] : [])
    expect(compareReadBack(written, serverView(written, config), config)).toEqual([])
  })

  // One property per mutation, so each is drawn whatever the number of runs.
  MUTATIONS.forEach(([field, mutate], i) => {
    test.prop([requestArb(), configArb], { numRuns: 20 })(`reports a single mutated ${field} by name (mutation ${i + 1})`, (request, config) => {
      const written = render(request, config)
      const read = serverView(written, config)
      mutate(read, config)
      const differences = compareReadBack(written, read, config)
      expect(differences.length).toBeGreaterThanOrEqual(1)
      expect(differences.every((d) => d.startsWith(field))).toBe(true)
    })
  })

  test.prop([requestArb(), configArb])("gives the same reasons whatever order the server returns labels and annotations in", (request, config) => {
    const written = render(request, config)
    const read = serverView(written, config)
    read["metadata"]["labels"] = { ...read["metadata"]["labels"], [`${config.labelDomain}/zz`]: "1", [`${config.labelDomain}/aa`]: "2" }
    read["metadata"]["annotations"] = { ...read["metadata"]["annotations"], [`${config.labelDomain}/zz`]: "1", [`${config.labelDomain}/aa`]: "2" }
    const reversed = copy(read)
    for (const field of ["labels", "annotations"]) reversed["metadata"][field] = Object.fromEntries(Object.entries(read["metadata"][field]).reverse())
    const differences = compareReadBack(written, read, config)
    expect(differences.filter((d) => d.includes("/zz")).length).toBe(2)
    expect(compareReadBack(written, reversed, config)).toEqual(differences)
  })

  it("reports Kueue's queue label and gate annotation on a plain-mode TrainJob, which dispatch never writes there", () => {
    const written = render()
    const read = copy(written)
    read["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "q"
    read["metadata"]["annotations"]["kueue.x-k8s.io/admission-gated-by"] = "someone/else"
    expect(compareReadBack(written, read, plainConfig)).toEqual([
      `metadata.labels["kueue.x-k8s.io/queue-name"]: wrote nothing, read "q"`,
      `metadata.annotations["kueue.x-k8s.io/admission-gated-by"]: wrote nothing, read "someone/else"`
    ])
  })

  it("quotes at most 253 characters of a label key it did not write", () => {
    const written = render()
    const read = copy(written)
    const key = `${plainConfig.labelDomain}/${"k".repeat(300)}`
    read["metadata"]["labels"][key] = "v"
    expect(compareReadBack(written, read, plainConfig)).toEqual([`metadata.labels[${JSON.stringify(key.slice(0, 253))}]: wrote nothing, read "v"`])
  })

  it("names an env entry read back as something other than an object, without throwing", () => {
    const written = render()
    for (const entry of [null, "A=1", 7]) {
      const read = copy(written)
      read["spec"]["trainer"]["env"][0] = entry
      expect(compareReadBack(written, read, plainConfig)).toEqual([`spec.trainer.env[0]: wrote an object, read ${entry === "A=1" ? '"A=1"' : String(entry)}`])
    }
  })

  it("reports an env list where dispatch wrote none, and an env that is not a list, without throwing", () => {
    const written = copy(render())
    delete written["spec"]["trainer"]["env"]
    const read = copy(written)
    read["spec"]["trainer"]["env"] = [{ name: "A", value: "1" }]
    expect(compareReadBack(written, read, plainConfig)).toEqual(["spec.trainer.env: wrote nothing, read an array of 1"])
    const original = render()
    const scalar = copy(original)
    scalar["spec"]["trainer"]["env"] = "A=1"
    expect(compareReadBack(original, scalar, plainConfig)).toEqual([`spec.trainer.env: wrote an array of ${(original as Obj)["spec"]["trainer"]["env"].length}, read "A=1"`])
  })

  it("reports a spec.trainer read back as anything but an object, whole", () => {
    const written = render()
    for (const trainer of [undefined, null, "x"]) {
      const read = copy(written)
      if (trainer === undefined) delete read["spec"]["trainer"]
      else read["spec"]["trainer"] = trainer
      expect(compareReadBack(written, read, plainConfig)).toEqual([`spec.trainer: wrote an object, read ${trainer === undefined ? "nothing" : trainer === null ? "null" : '"x"'}`])
    }
  })

  it("finds dispatch's runtime patch by its manager, wherever other managers put theirs", () => {
    const written = render()
    const read = copy(written)
    read["spec"]["runtimePatches"].unshift({ manager: "kueue.x-k8s.io/manager", trainingRuntimeSpec: {} })
    expect(compareReadBack(written, read, plainConfig)).toEqual([])
    read["spec"]["runtimePatches"].pop()
    expect(compareReadBack(written, read, plainConfig)).toEqual([`spec.runtimePatches: dispatch's patch (manager ${plainConfig.labelDomain}/dispatch) is missing`])
  })

  it("gives one reason for a read that is not an object at all", () => {
    const written = render()
    expect(compareReadBack(written, null, plainConfig)).toEqual(["the object read back is null, not a TrainJob"])
    expect(compareReadBack(written, [written], plainConfig)).toEqual(["the object read back is an array of 1, not a TrainJob"])
    expect(compareReadBack(written, "x", plainConfig)).toEqual(['the object read back is "x", not a TrainJob'])
  })

  it("forgives a dropped empty value only in env entries", () => {
    const written = copy(render())
    written["spec"]["trainer"]["volumes"] = [{ name: "a", value: "" }]
    const read = copy(written)
    delete read["spec"]["trainer"]["volumes"][0]["value"]
    expect(compareReadBack(written, read, plainConfig)).toEqual([`spec.trainer.volumes[0].value: wrote "", read nothing`])
  })

  it("checks spec.suspend: as written in plain mode; in Kueue mode, as Kueue's webhook sets it on create", () => {
    const plain = render()
    const read = copy(plain)
    read["spec"]["suspend"] = false
    expect(compareReadBack(plain, read, plainConfig)).toEqual(["spec.suspend: wrote true, read false"])
    const kueueConfig: BackendConfig = { ...plainConfig, mode: "kueue", kueue: { queue: "q", admissionCheck: "a" } }
    const kueue = render(exampleRequest, kueueConfig)
    expect(pathOfSuspend(kueue)).toBeUndefined()
    const closed = copy(kueue)
    closed["spec"]["suspend"] = true
    expect(compareReadBack(kueue, closed, kueueConfig)).toEqual([])
    const unmanaged = copy(kueue)
    expect(compareReadBack(kueue, unmanaged, kueueConfig)).toEqual(["spec.suspend: Kueue's webhook sets true on create, read nothing: Kueue does not manage this TrainJob"])
    // Once adopted, Kueue may have admitted it (suspend false) after Open.
    const admitted = copy(kueue)
    admitted["spec"]["suspend"] = false
    expect(compareReadBack(kueue, admitted, kueueConfig, { adopted: true })).toEqual([])
  })

  it("does not compare spec.suspend of a TrainJob a retry adopted: Open may have moved it", () => {
    const plain = render()
    const opened = copy(plain)
    opened["spec"]["suspend"] = false
    expect(compareReadBack(plain, opened, plainConfig, { adopted: true })).toEqual([])
    opened["spec"]["trainer"]["image"] = "other:1"
    expect(compareReadBack(plain, opened, plainConfig, { adopted: true }).map((d) => d.split(":")[0])).toEqual(["spec.trainer.image"])
  })

  it("names the first leaf that differs inside an object-valued field", () => {
    const written = render()
    const wrote = copy(written)
    const read = copy(written)
    read["spec"]["trainer"]["env"][1]["value"] = "changed"
    read["spec"]["runtimeRef"]["name"] = "other"
    read["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]["name"] = "x"
    const differences = compareReadBack(written, read, plainConfig)
    expect(differences).toContainEqual(`spec.trainer.env[1].value: wrote ${JSON.stringify(wrote["spec"]["trainer"]["env"][1]["value"])}, read "changed"`)
    expect(differences).toContainEqual(`spec.runtimeRef.name: wrote "${wrote["spec"]["runtimeRef"]["name"]}", read "other"`)
    expect(differences.some((d) => d.startsWith("spec.runtimePatches[manager=") && d.includes(".trainingRuntimeSpec.template.spec.replicatedJobs[0].name: wrote"))).toBe(true)
  })

  it("treats an empty env value dropped by the server as the same", () => {
    const written = render({ ...exampleRequest, spec: { ...exampleRequest.spec, env: { EMPTY: "" } } })
    const read = copy(written)
    delete read["spec"]["trainer"]["env"][0]["value"]
    expect(compareReadBack(written, read, plainConfig)).toEqual([])
  })

  test.prop([fc.anything()])("never throws, whatever is read", (read) => {
    expect(() => compareReadBack(render(), read, plainConfig)).not.toThrow()
  })
})
