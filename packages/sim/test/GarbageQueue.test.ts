import { builtin } from "./BuiltinKinds.ts"
import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { type KubeObject } from "../src/Api.ts"
import { Resources } from "../src/kinds/Builtin.ts"
import { GarbageQueue, ownerReferencesOf } from "../src/apiserver/collection/GarbageQueue.ts"
import { ownerState } from "../src/apiserver/collection/GarbageCollector.ts"
import { Store } from "../src/apiserver/store/Store.ts"
import { finalizersOf, identityOf, isDeleting, type ServerContext } from "../src/apiserver/store/ServerContext.ts"
import { at, bareSimulator, call, created, ownerRef, trainJob, workload } from "./SimFixture.ts"

// Random writes and removals of Workloads in two namespaces, each naming some of the uids u0..u5.
const op = fc.record({
  remove: fc.boolean(),
  namespace: fc.constantFrom("a", "b"),
  name: fc.constantFrom("w0", "w1", "w2", "w3"),
  owners: fc.uniqueArray(fc.nat(5), { maxLength: 3 })
})

const workloadNaming = (namespace: string, name: string, owners: ReadonlyArray<number>): KubeObject => ({
  kind: "Workload",
  metadata: {
    name,
    namespace,
    ...(owners.length === 0 ? {} : { ownerReferences: owners.map((o) => ({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: `j${o}`, uid: `u${o}` })) })
  }
})

const addressKey = (a: { readonly resource: string; readonly namespace: string | undefined; readonly name: string }) => `${a.resource}|${a.namespace ?? ""}/${a.name}`

describe("garbage queue", () => {
  propTest.prop([fc.array(op, { maxLength: 40 })])("its owner index agrees with a full scan of the store after any writes and removals", (ops) => {
    const store = new Store()
    const queue = new GarbageQueue(store, builtin)
    for (const o of ops) {
      if (o.remove) store.remove("workloads", o.namespace, o.name)
      else store.write("workloads", workloadNaming(o.namespace, o.name, o.owners))
    }
    const scanned = new Map<string, Set<string>>()
    for (const object of store.all("workloads")) {
      for (const ref of ownerReferencesOf(object)) {
        const uid = String(ref["uid"])
        const { namespace, name } = identityOf(object)
        scanned.set(uid, (scanned.get(uid) ?? new Set()).add(addressKey({ resource: "workloads", namespace, name })))
      }
    }
    expect(new Set(queue.owners())).toEqual(new Set(scanned.keys()))
    for (const [uid, keys] of scanned) expect(new Set(queue.dependentsOf(uid).map(addressKey))).toEqual(keys)
  })

  it("marks a written dependent, the dependents of a removed owner, and the owner a dependent names", () => {
    const store = new Store()
    const queue = new GarbageQueue(store, builtin)
    store.write("trainjobs", { kind: "TrainJob", metadata: { name: "j1", namespace: "a", uid: "u1" } })
    // an object with neither owners nor a deletion mark is none of the collector's business
    expect(queue.takePending()).toEqual([])
    store.write("workloads", workloadNaming("a", "w0", [1]))
    expect(queue.takePending().map(addressKey)).toEqual(["workloads|a/w0", "trainjobs|a/j1"])
    store.remove("trainjobs", "a", "j1")
    expect(queue.takePending().map(addressKey)).toEqual(["workloads|a/w0"])
    expect(queue.hasPending()).toBe(false)
  })
})

// A forest of TrainJobs and Workloads (Workloads owned by TrainJobs and earlier Workloads, some with
// blockOwnerDeletion), then deletes with every propagation policy and direct finalizer edits.
const forest = fc.record({
  jobs: fc.integer({ min: 1, max: 4 }),
  workloads: fc.array(fc.record({ jobOwners: fc.uniqueArray(fc.nat(3), { maxLength: 2 }), workloadOwners: fc.uniqueArray(fc.nat(9), { maxLength: 2 }), block: fc.boolean(), finalizer: fc.boolean() }), { maxLength: 10 }),
  deletes: fc.array(fc.record({ job: fc.boolean(), index: fc.nat(9), policy: fc.constantFrom("Background", "Foreground", "Orphan") }), { maxLength: 5 }),
  // workloads whose own finalizer is then taken off (so a Foreground owner waiting on them may finish)
  released: fc.array(fc.nat(9), { maxLength: 3 })
})

const contextOf = (objects: ReadonlyMap<string, ReadonlyArray<KubeObject>>): Pick<ServerContext, "store" | "kinds"> => {
  const store = new Store()
  for (const [plural, list] of objects) for (const o of list) store.write(plural, o)
  return { store, kinds: builtin }
}

describe("incremental garbage collection", () => {
  propTest.prop([forest], { numRuns: 80 })("leaves nothing a full scan of the store would still collect", (plan) => {
    const sim = bareSimulator()
    const jobs = Array.from({ length: plan.jobs }, (_, i) => created(sim, "trainjobs", trainJob(`job-${i}`)))
    const workloads: Array<KubeObject> = []
    plan.workloads.forEach((w, i) => {
      const owners = [...w.jobOwners.map((j) => jobs[j % jobs.length]), ...w.workloadOwners.filter((k) => k < workloads.length).map((k) => workloads[k])]
      const refs = [...new Set(owners)].flatMap((o) => (o === undefined ? [] : [ownerRef(o, w.block ? { blockOwnerDeletion: true } : {})]))
      const metadata = { ...(refs.length === 0 ? {} : { ownerReferences: refs }), ...(w.finalizer ? { finalizers: ["example.org/hold"] } : {}) }
      workloads.push(created(sim, "workloads", workload(`wl-${i}`, metadata)))
    })
    for (const d of plan.deletes) {
      const resource = d.job ? "trainjobs" : "workloads"
      const name = d.job ? `job-${d.index % plan.jobs}` : `wl-${d.index}`
      call(sim, { verb: "delete", ...at(resource), name, propagationPolicy: d.policy })
      sim.advance(300)
    }
    for (const k of plan.released) {
      call(sim, { verb: "patch", patchType: "merge", ...at("workloads"), name: `wl-${k}`, body: { metadata: { finalizers: null } } })
    }
    sim.advance(1000)

    // Read every object through the simulator, then check the collector's rules over a copy of the store.
    const stored = new Map(Resources.filter((r) => r.plural === "trainjobs" || r.plural === "workloads").map((r) => [r.plural, sim.system.list(r.plural, "default")] as const))
    const context = contextOf(stored) as ServerContext
    for (const [plural, list] of stored) {
      for (const object of list) {
        const { uid, namespace } = identityOf(object)
        const refs = ownerReferencesOf(object)
        const states = refs.map((ref) => ownerState(context, ref, namespace))
        const finalizers = finalizersOf(object)
        // no live object has all its owners gone, and no dangling reference sits beside a live owner
        // (an object waiting on its own Foreground delete is only waited on, as the collector does)
        if (!isDeleting(object)) expect(refs.length === 0 || !states.every((s) => s === "absent"), `${plural} ${identityOf(object).name}`).toBe(true)
        if (!finalizers.includes("foregroundDeletion") && states.some((s) => s === "present")) expect(states.includes("absent")).toBe(false)
        // an Orphan delete has released its dependents and finished
        expect(finalizers).not.toContain("orphan")
        if (finalizers.includes("foregroundDeletion")) {
          // a Foreground owner still waits only on a dependent that blocks it
          const blocking = [...stored.values()].flat().some((d) => ownerReferencesOf(d).some((r) => r["uid"] === uid && r["blockOwnerDeletion"] === true))
          expect(blocking).toBe(true)
        }
      }
    }
  })
})
