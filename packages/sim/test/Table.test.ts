import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { type KubeObject } from "../src/Api.ts"
import { Resources } from "../src/kinds/Builtin.ts"
import { tableOf } from "../src/http/Table.ts"

const byPlural = (plural: string) => Resources.find((r) => r.plural === plural)!
const created = "2026-01-01T00:00:00Z"
const now = Date.parse(created) + 125_000

const job = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainJob",
  metadata: { name: "j", namespace: "default", creationTimestamp: created, resourceVersion: "7" },
  status
})
const condition = (type: string, status: string) => ({ type, status })

describe("tableOf", () => {
  it("prints the State column from the last condition, and a null cell for a job without conditions", () => {
    const cells = (status: Record<string, unknown>) =>
      (tableOf({ resource: byPlural("trainjobs"), body: job(status), now, include: "None", withColumns: false })["rows"] as Array<{ cells: Array<unknown> }>)[0]?.cells
    expect(cells({})).toEqual(["j", null, "2m5s"])
    expect(cells({ jobsStatus: [{ name: "node", active: 1 }] })).toEqual(["j", null, "2m5s"])
    expect(cells({ conditions: [condition("Suspended", "False")], jobsStatus: [{ name: "node", active: 1 }] })).toEqual(["j", "Suspended", "2m5s"])
    expect(cells({ conditions: [condition("Complete", "True"), condition("Suspended", "False")] })).toEqual(["j", "Suspended", "2m5s"])
  })

  it("prints TrainJob columns with the age on the simulator's clock", () => {
    const table = tableOf({ resource: byPlural("trainjobs"), body: job({ conditions: [condition("Suspended", "True")] }), now, include: "Metadata", withColumns: true })
    expect((table["columnDefinitions"] as Array<{ name: string }>).map((c) => c.name)).toEqual(["Name", "State", "Age"])
    expect(table["rows"]).toEqual([
      {
        cells: ["j", "Suspended", "2m5s"],
        object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: job({}).metadata }
      }
    ])
    expect(table["metadata"]).toEqual({ resourceVersion: "7" })
  })

  it("prints Kueue's Workload columns", () => {
    const workload: KubeObject = {
      metadata: { name: "w", creationTimestamp: created },
      spec: { queueName: "lq" },
      status: { admission: { clusterQueue: "cq" }, conditions: [condition("QuotaReserved", "True"), condition("Admitted", "True")] }
    }
    const table = tableOf({ resource: byPlural("workloads"), body: { items: [workload], metadata: { resourceVersion: "9", continue: "c" } }, now, include: "None", withColumns: true })
    expect((table["columnDefinitions"] as Array<{ name: string }>).map((c) => c.name)).toEqual(["Name", "Queue", "Reserved in", "Admitted", "Finished", "Age"])
    expect(table["rows"]).toEqual([{ cells: ["w", "lq", "cq", "True", null, "2m5s"] }])
    expect(table["metadata"]).toEqual({ resourceVersion: "9", continue: "c" })
  })

  // Events print LAST SEEN first; every other kind its name.
  test.prop([fc.constantFrom(...Resources.filter((r) => r.kind !== "Event")), fc.array(fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), { maxLength: 20 }), fc.boolean()])(
    "has one row per item and one cell per column",
    (resource, names, withColumns) => {
      const items = names.map((name) => ({ metadata: { name, creationTimestamp: created } }))
      const table = tableOf({ resource, body: { items, metadata: {} }, now, include: "Object", withColumns })
      const rows = table["rows"] as Array<{ cells: Array<unknown>; object: unknown }>
      const columns = table["columnDefinitions"] as Array<unknown>
      expect(rows.map((r) => r.cells[0])).toEqual(names)
      expect(rows.map((r) => r.object)).toEqual(items)
      expect(columns.length > 0).toBe(withColumns)
      const width = tableOf({ resource, body: items[0] ?? {}, now, include: "None", withColumns: true })["columnDefinitions"] as Array<unknown>
      for (const row of rows) expect(row.cells).toHaveLength(width.length)
    }
  )
})
