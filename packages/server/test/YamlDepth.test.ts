// How deep a YAML text nests, measured before any recursive step sees it.
import { test as propTest } from "@fast-check/vitest"
import { valueNesting } from "@dispatch/jobs"
import fc from "fast-check"
import { expect, test } from "vitest"
import { parse as parseYaml, stringify as yamlText } from "yaml"
import { yamlDepth } from "../src/http/YamlDepth.ts"

propTest.prop([fc.jsonValue({ maxDepth: 12 }), fc.boolean()])("yamlDepth counts as deep as the parsed value nests, in block or flow style", (value, flow) => {
  const text = flow ? JSON.stringify(value) : yamlText(value)
  expect(yamlDepth(text)).toBe(valueNesting(parseYaml(text)))
})

test("yamlDepth stops one past its limit, and counts every document of a stream and the deepest of siblings", () => {
  const deep = `${"- ".repeat(500)}v`
  expect(yamlDepth(deep)).toBe(500)
  expect(yamlDepth(deep, 10)).toBe(11)
  expect(yamlDepth("a: 1\n---\nb: [[1]]\n")).toBe(3)
  expect(yamlDepth("a: [[[1]]]\nb: 1\n")).toBe(4)
  expect(yamlDepth("plain")).toBe(0)
  expect(yamlDepth("")).toBe(0)
})
