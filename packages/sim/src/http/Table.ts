// meta.k8s.io/v1 Tables, the form `kubectl get` asks for so that it can print server-chosen columns.
// TrainJob and Workload get the printer columns of their CRDs (an empty cell is null, as the real
// server sends it); every other kind gets NAME and AGE.
import { humanDuration, valueAt } from "@dispatch/kube"
import type { KubeObject, Resource } from "../Api.ts"
import type { IncludeObject } from "./MediaType.ts"
import { workloadColumns } from "./WorkloadColumns.ts"

/** One Table column: its definition and how a row's cell is read from an object. */
export interface Column {
  readonly name: string
  readonly type: string
  readonly format: string
  readonly description: string
  readonly cell: (object: KubeObject, now: number) => string | number | null
  /** 0 (the default) shows in `kubectl get`; 1 only with `-o wide`. */
  readonly priority?: number
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

const field = (value: unknown, ...path: ReadonlyArray<string>): unknown => valueAt(value, path)

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null)

const conditions = (object: KubeObject): ReadonlyArray<Record<string, unknown>> => {
  const list = field(object, "status", "conditions")
  return Array.isArray(list) ? list.map(record) : []
}

const conditionStatus = (object: KubeObject, type: string): string | null =>
  text(conditions(object).find((c) => c["type"] === type)?.["status"])

const isTrue = (object: KubeObject, type: string): boolean => conditionStatus(object, type) === "True"

/**
 * What the TrainJob CRD's State printer column shows (`.status.conditions[-1:].type`): the type of the
 * last condition, or "" when there is none.
 */
export const printedTrainJobState = (object: KubeObject): string => {
  const type = conditions(object).at(-1)?.["type"]
  return typeof type === "string" ? type : ""
}

/** A summary of the state a TrainJob is in, read from its conditions and jobsStatus (not what kubectl prints: see printedTrainJobState). */
export const trainJobState = (object: KubeObject): string => {
  if (isTrue(object, "Failed")) return "Failed"
  if (isTrue(object, "Complete")) return "Complete"
  if (isTrue(object, "Suspended")) return "Suspended"
  const jobs = field(object, "status", "jobsStatus")
  const running = Array.isArray(jobs) && jobs.some((j) => Number(record(j)["active"] ?? 0) > 0 || Number(record(j)["ready"] ?? 0) > 0)
  return running ? "Running" : "Pending"
}

/** NAME, as every kind prints it. */
export const nameColumn: Column = {
  name: "Name",
  type: "string",
  format: "name",
  description: "Name must be unique within a namespace.",
  cell: (object) => text(field(object, "metadata", "name"))
}

/** AGE, on the simulator's clock. */
export const ageColumn: Column = {
  name: "Age",
  type: "date",
  format: "",
  description: "Time since the object was created.",
  cell: (object, now) => {
    const created = Date.parse(String(field(object, "metadata", "creationTimestamp") ?? ""))
    return Number.isNaN(created) ? "<unknown>" : humanDuration(now - created)
  }
}

const stringColumn = (name: string, description: string, cell: (object: KubeObject) => string | null): Column => ({
  name,
  type: "string",
  format: "",
  description,
  cell
})

const columnsFor = (resource: Resource): ReadonlyArray<Column> => {
  switch (resource.kind) {
    case "TrainJob":
      return [nameColumn, stringColumn("State", "Custom resource definition column (in JSONPath format): .status.conditions[-1:].type", (o) => text(printedTrainJobState(o))), ageColumn]
    case "Workload":
      return [
        nameColumn,
        stringColumn("Queue", "The LocalQueue the workload was submitted to.", (o) => text(field(o, "spec", "queueName"))),
        stringColumn("Reserved in", "The ClusterQueue where the workload reserves quota.", (o) =>
          text(field(o, "status", "admission", "clusterQueue"))
        ),
        stringColumn("Admitted", "Whether the workload is admitted.", (o) => conditionStatus(o, "Admitted")),
        stringColumn("Finished", "Whether the workload has finished.", (o) => conditionStatus(o, "Finished")),
        ageColumn
      ]
    default:
      return workloadColumns(resource.kind, nameColumn, ageColumn) ?? [nameColumn, ageColumn]
  }
}

const rowObject = (object: KubeObject, include: IncludeObject): Record<string, unknown> => {
  switch (include) {
    case "None":
      return {}
    case "Metadata":
      return { object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: object.metadata ?? {} } }
    case "Object":
      return { object }
  }
}

/** What a Table is made from: one object, or a list body with `items`. */
export interface TableSource {
  readonly resource: Resource
  readonly body: unknown
  /** The simulator's clock, for the Age column. */
  readonly now: number
  readonly include: IncludeObject
  /** False for watch events after the first: the columns were already sent. */
  readonly withColumns: boolean
}

/** Renders an object or a list as a meta.k8s.io/v1 Table. */
export const tableOf = (source: TableSource): Record<string, unknown> => {
  const columns = columnsFor(source.resource)
  const body = record(source.body)
  const items: ReadonlyArray<KubeObject> = Array.isArray(body["items"]) ? body["items"].map(record) : [body]
  const listMeta = record(body["metadata"])
  const isList = Array.isArray(body["items"])
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: isList
      ? {
          ...(listMeta["resourceVersion"] === undefined ? {} : { resourceVersion: listMeta["resourceVersion"] }),
          ...(listMeta["continue"] === undefined ? {} : { continue: listMeta["continue"] }),
          ...(listMeta["remainingItemCount"] === undefined ? {} : { remainingItemCount: listMeta["remainingItemCount"] })
        }
      : { ...(listMeta["resourceVersion"] === undefined ? {} : { resourceVersion: listMeta["resourceVersion"] }) },
    columnDefinitions: source.withColumns
      ? columns.map((c) => ({ name: c.name, type: c.type, format: c.format, description: c.description, priority: c.priority ?? 0 }))
      : [],
    rows: items.map((item) => ({ cells: columns.map((c) => c.cell(item, source.now)), ...rowObject(item, source.include) }))
  }
}
