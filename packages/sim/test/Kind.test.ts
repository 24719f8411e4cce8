// defineKind: a plain custom resource's behaviour wherever a definition says nothing, the definition's
// own wherever it does; and fieldAt, the reader most selectable fields use.
import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { ageColumn, nameColumn } from "../src/kinds/Columns.ts"
import { defineKind, fieldAt } from "../src/kinds/Kind.ts"

const resource = { group: "example.com", versions: ["v1"], kind: "Thing", listKind: "ThingList", plural: "things", singular: "thing", shortNames: [], namespaced: true, hasStatus: true }

describe("defineKind", () => {
  it("gives a bare definition a plain custom resource's behaviour", () => {
    const kind = defineKind(resource)
    expect(kind).toMatchObject(resource)
    expect(kind.fields).toBe("open")
    expect(kind.descriptions).toEqual({})
    expect(kind.selectableFields).toEqual({})
    expect(kind.columns).toEqual([nameColumn, ageColumn])
    expect(kind.protobuf).toEqual({})
    expect(kind.strategy.prepareForCreate).toBeUndefined()
    const object = { metadata: { name: "x" }, spec: { a: 1 } }
    expect(kind.strategy.defaults(object)).toBe(object)
    expect(kind.strategy.validate(object, undefined)).toEqual([])
    expect(kind.strategy.nameProblems("a.b-c")).toEqual([])
    expect(kind.strategy.nameProblems("Not_A_Name").length).toBeGreaterThan(0)
  })

  it("keeps what a definition gives", () => {
    const defaults = (o: Record<string, unknown>) => ({ ...o, d: true })
    const validate = () => [{ field: "spec", reason: "FieldValueInvalid", message: "no" }] as never
    const prepareForCreate = (o: Record<string, unknown>) => ({ ...o, p: true })
    const nameProblems = () => ["never"]
    const read = fieldAt("spec.x")
    const kind = defineKind({ ...resource, fields: "any", descriptions: { spec: "s" }, selectableFields: { "spec.x": read }, columns: [ageColumn], protobuf: { m: "1:a:string" }, strategy: { defaults, validate, prepareForCreate, nameProblems } })
    expect(kind.fields).toBe("any")
    expect(kind.descriptions).toEqual({ spec: "s" })
    expect(kind.selectableFields["spec.x"]).toBe(read)
    expect(kind.columns).toEqual([ageColumn])
    expect(kind.protobuf).toEqual({ m: "1:a:string" })
    expect(kind.strategy).toEqual({ defaults, validate, prepareForCreate, nameProblems })
  })
})

describe("fieldAt", () => {
  propTest.prop([fc.oneof(fc.string(), fc.integer(), fc.boolean())])("reads the value at a dotted path as a string", (value) => {
    expect(fieldAt("a.b.c")({ a: { b: { c: value } } })).toBe(String(value))
  })

  it("reads nothing as the empty string", () => {
    expect(fieldAt("a.b")({ a: { b: null } })).toBe("")
    expect(fieldAt("a.b")({ a: {} })).toBe("")
    expect(fieldAt("a.b")({ a: "text" })).toBe("")
    expect(fieldAt("a")(undefined)).toBe("")
    expect(fieldAt("a.b")({ a: null })).toBe("")
    expect(fieldAt("a.1")({ a: ["x", "y"] })).toBe("y")
  })
})
