import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { jsonPatch, parsePointer } from "../src/apiserver/patches/JsonPatch.ts"

const ok = (target: unknown, patch: unknown): unknown => {
  const result = jsonPatch(target, patch)
  if (!result.ok) throw new Error(result.error.message)
  return result.value
}

describe("jsonPatch (RFC 6902)", () => {
  it("adds, removes, replaces, moves and copies", () => {
    expect(ok({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }])).toEqual({ foo: "bar", baz: "qux" })
    expect(ok({ foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }])).toEqual({ foo: ["bar", "qux", "baz"] })
    expect(ok({ foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: "end" }])).toEqual({ foo: ["bar", "end"] })
    expect(ok({ baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }])).toEqual({ foo: "bar" })
    expect(ok({ baz: "qux" }, [{ op: "replace", path: "/baz", value: "boo" }])).toEqual({ baz: "boo" })
    expect(ok({ foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } }, [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }])).toEqual({
      foo: { bar: "baz" },
      qux: { corge: "grault", thud: "fred" }
    })
    expect(ok({ a: [1] }, [{ op: "copy", from: "/a", path: "/b" }])).toEqual({ a: [1], b: [1] })
    expect(ok({ "a/b": { "m~n": 1 } }, [{ op: "replace", path: "/a~1b/m~0n", value: 2 }])).toEqual({ "a/b": { "m~n": 2 } })
  })

  it("tests values, failing the whole patch when a test fails", () => {
    const target = { spec: { suspend: true }, n: 1 }
    expect(ok(target, [{ op: "test", path: "/spec/suspend", value: true }, { op: "replace", path: "/n", value: 2 }])).toEqual({ spec: { suspend: true }, n: 2 })
    const failed = jsonPatch(target, [{ op: "replace", path: "/n", value: 2 }, { op: "test", path: "/spec/suspend", value: false }])
    expect(failed).toEqual({ ok: false, error: { _tag: "OperationFailed", message: "testing value /spec/suspend failed: test failed" } })
    expect(target).toEqual({ spec: { suspend: true }, n: 1 })
  })

  it("fails on missing paths and malformed operations", () => {
    expect(jsonPatch({}, [{ op: "remove", path: "/x" }])).toMatchObject({ ok: false, error: { _tag: "OperationFailed" } })
    expect(jsonPatch({}, [{ op: "replace", path: "/x", value: 1 }])).toMatchObject({ ok: false, error: { _tag: "OperationFailed" } })
    expect(jsonPatch({}, [{ op: "add", path: "/a/b", value: 1 }])).toMatchObject({ ok: false, error: { _tag: "OperationFailed" } })
    expect(jsonPatch({ a: [] }, [{ op: "add", path: "/a/5", value: 1 }])).toMatchObject({ ok: false, error: { _tag: "OperationFailed" } })
    expect(jsonPatch({}, [{ op: "frobnicate", path: "/a" }])).toMatchObject({ ok: false, error: { _tag: "MalformedPatch" } })
    expect(jsonPatch({}, [{ op: "add", path: "a", value: 1 }])).toMatchObject({ ok: false, error: { _tag: "MalformedPatch" } })
    expect(jsonPatch({}, { op: "add" })).toMatchObject({ ok: false, error: { _tag: "MalformedPatch" } })
  })

  it("parses JSON pointers", () => {
    expect(parsePointer("")).toEqual([])
    expect(parsePointer("/a~1b/~0")).toEqual(["a/b", "~"])
    expect(parsePointer("a")).toBeUndefined()
  })

  const key = fc.string({ minLength: 1, maxLength: 5 })
  const doc = fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })
  const pointer = (k: string) => `/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`

  propTest.prop([doc, key, fc.jsonValue({ maxDepth: 2 })])("add then remove of a new key restores the document", (d, k, v) => {
    fc.pre(!Object.hasOwn(d, k))
    expect(ok(d, [{ op: "add", path: pointer(k), value: v }, { op: "remove", path: pointer(k) }])).toEqual(d)
  })

  propTest.prop([doc, key, fc.jsonValue({ maxDepth: 2 })])("a test of the value just added succeeds", (d, k, v) => {
    expect(ok(d, [{ op: "add", path: pointer(k), value: v }, { op: "test", path: pointer(k), value: v }])).toEqual({ ...d, [k]: v })
  })

  propTest.prop([doc])("the empty patch is the identity", (d) => {
    expect(ok(d, [])).toEqual(d)
  })
})
