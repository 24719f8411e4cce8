import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import {
  type FieldPath,
  difference,
  hasPath,
  intersection,
  isEmptySet,
  pathsOf,
  printPath,
  recursiveDifference,
  setOfPaths,
  union
} from "../src/apiserver/managed/FieldSet.ts"

// Paths over a small alphabet, so that sets overlap often.
const element = fc.constantFrom("f:metadata", "f:labels", "f:a", "f:spec", 'k:{"name":"x"}', 'v:"kubernetes"', "i:0")
const path = fc.array(element, { minLength: 1, maxLength: 4 })
const paths = fc.array(path, { maxLength: 8 })
const key = (p: FieldPath): string => JSON.stringify(p)
const keys = (ps: Iterable<FieldPath>): ReadonlyArray<string> => [...new Set([...ps].map(key))].sort()

describe("FieldSet (FieldsV1 as a set of paths)", () => {
  propTest.prop([paths])("holds exactly the paths it was built from", (ps) => {
    expect(keys(pathsOf(setOfPaths(ps)))).toEqual(keys(ps))
  })

  propTest.prop([paths, paths])("union, difference and intersection are the set operations on paths", (a, b) => {
    const sa = setOfPaths(a)
    const sb = setOfPaths(b)
    const inB = new Set(b.map(key))
    const inA = new Set(a.map(key))
    expect(keys(pathsOf(union(sa, sb)))).toEqual(keys([...a, ...b]))
    expect(keys(pathsOf(difference(sa, sb)))).toEqual(keys(a.filter((p) => !inB.has(key(p)))))
    expect(keys(pathsOf(intersection(sa, sb)))).toEqual(keys(a.filter((p) => inB.has(key(p)))))
    expect(keys(pathsOf(intersection(sb, sa)))).toEqual(keys(b.filter((p) => inA.has(key(p)))))
  })

  propTest.prop([paths, paths])("a recursive difference also drops every path below a removed one", (a, b) => {
    const below = (p: FieldPath, q: FieldPath): boolean => q.length <= p.length && q.every((e, i) => p[i] === e)
    const expected = a.filter((p) => !b.some((q) => below(p, q)))
    expect(keys(pathsOf(recursiveDifference(setOfPaths(a), setOfPaths(b))))).toEqual(keys(expected))
  })

  propTest.prop([paths])("a set minus itself is empty, and hasPath agrees with its paths", (a) => {
    const set = setOfPaths(a)
    expect(isEmptySet(difference(set, set))).toBe(true)
    for (const p of a) expect(hasPath(set, p)).toBe(true)
  })

  it("writes FieldsV1 as the API server does: a node with children that is a member carries '.'", () => {
    const set = setOfPaths([["f:metadata", "f:labels"], ["f:metadata", "f:labels", "f:a"], ["f:spec", "f:suspend"]])
    expect(set).toEqual({ "f:metadata": { "f:labels": { ".": {}, "f:a": {} } }, "f:spec": { "f:suspend": {} } })
  })

  it("prints paths as conflicts name them", () => {
    expect(printPath(["f:spec", "f:containers", 'k:{"name":"x"}', "f:image"])).toBe('.spec.containers[name="x"].image')
    expect(printPath(["f:metadata", "f:finalizers", 'v:"a"'])).toBe('.metadata.finalizers[="a"]')
    expect(printPath(["f:spec", "f:args", "i:2"])).toBe(".spec.args[2]")
    expect(printPath(["f:spec", "f:ports", 'k:{"containerPort":80,"protocol":"TCP"}'])).toBe('.spec.ports[containerPort=80,protocol="TCP"]')
  })
})
