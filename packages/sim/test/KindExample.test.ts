// The worked example of adding a kind in docs/simulator.md, kept true: the document's Widget is this
// test's (but for its import paths), and a simulator serving it answers the real kubectl for it with
// nothing else changed: get with its columns, explain with its text, its defaults and its rule.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtinKinds } from "../src/kinds/Builtin.ts"
import { type Served, serve } from "./HttpFixture.ts"
import { kubectl, ok } from "./e2e/kubectl/KubectlFixture.ts"
import { widget } from "./WidgetKind.ts"

const here = fileURLToPath(new URL(".", import.meta.url))

// The code of a TypeScript file without its leading comment lines, its imports read from src/ as the test's are.
const codeOf = (text: string): string =>
  text
    .replace(/^(\/\/.*\n)+/, "")
    .replaceAll('"../../../apiserver/', '"../src/apiserver/')
    .replaceAll('"../../core/', '"../src/kinds/core/')
    .replaceAll('"../../', '"../src/kinds/')

describe("the worked example of adding a kind", () => {
  it("is the document's Widget", () => {
    const doc = readFileSync(join(here, "..", "..", "..", "docs", "simulator.md"), "utf8")
    const block = /```ts\n(\/\/ kinds\/example\/widget\/Widget\.ts\n[\s\S]*?)```/.exec(doc)?.[1]
    expect(block).toBeDefined()
    expect(codeOf(readFileSync(join(here, "WidgetKind.ts"), "utf8"))).toBe(codeOf(block ?? ""))
  })

  describe("served to kubectl", () => {
    let served: Served
    beforeAll(async () => {
      served = await serve({ kinds: [...builtinKinds, widget] })
    })
    afterAll(() => served.close())

    const apply = (name: string, spec: Record<string, unknown>) => {
      const path = join(served.dir, `${name}.json`)
      writeFileSync(path, JSON.stringify({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name }, spec }))
      return kubectl(served, "apply", "-f", path)
    }

    it("creates with its defaults, lists with its columns and short name, and refuses what breaks its rule", async () => {
      ok(await apply("plain", {}))
      ok(await apply("big", { size: 3 }))
      const listed = ok(await kubectl(served, "get", "wd"))
      expect(listed.split("\n")[0]).toMatch(/^NAME\s+SIZE\s+AGE$/)
      expect(listed).toMatch(/^big\s+3\s+/m)
      expect(listed).toMatch(/^plain\s+1\s+/m)
      const small = await apply("small", { size: 0 })
      expect(small.code).not.toBe(0)
      expect(small.stderr).toContain("spec.size: Invalid value: 0: must be at least 1")
    })

    it("explains its fields", async () => {
      const out = ok(await kubectl(served, "explain", "widget.spec"))
      expect(out).toContain("KIND:       Widget")
      expect(out).toContain("How big the widget is; at least 1.")
    })
  })
})
