// Table columns (meta.k8s.io/v1), as a kind declares the ones `kubectl get` prints, and the readers
// their cells share. An empty cell is null, as the real server sends it.
import type { KubeObject } from "../Api.ts"
import { humanDuration, valueAt } from "@dispatch/kube"

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

/** The value as a record (an empty one when it is not an object). */
export const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

/** The value as a list of records (empty when it is not a list). */
export const records = (value: unknown): ReadonlyArray<Record<string, unknown>> => (Array.isArray(value) ? value.map(record) : [])

/** The value at a path of keys, or undefined. */
export const field = (value: unknown, ...path: ReadonlyArray<string>): unknown => valueAt(value, path)

/** A non-empty string, or null (an empty cell). */
export const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null)

/** A finite number, or 0. */
export const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0)

/** A timestamp in ms since the epoch, or undefined. */
export const time = (value: unknown): number | undefined => {
  const ms = Date.parse(String(value ?? ""))
  return Number.isNaN(ms) ? undefined : ms
}

/** The object's status conditions. */
export const conditionsOf = (object: KubeObject): ReadonlyArray<Record<string, unknown>> => records(field(object, "status", "conditions"))

/** The status of the object's condition of that type, or null. */
export const conditionStatus = (object: KubeObject, type: string): string | null => text(conditionsOf(object).find((c) => c["type"] === type)?.["status"])

/** True when the object's condition of that type is True. */
export const conditionTrue = (object: KubeObject, type: string): boolean => conditionStatus(object, type) === "True"

/** A column of the given type whose format is empty. */
export const column = (name: string, type: string, description: string, cell: Column["cell"], priority = 0): Column => ({ name, type, format: "", description, cell, priority })

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
    const created = time(field(object, "metadata", "creationTimestamp"))
    return created === undefined ? "<unknown>" : humanDuration(now - created)
  }
}
