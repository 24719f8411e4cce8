// The simulator's dependency rule: the API server's machinery (apiserver/ and http/) knows kinds only
// through the kind registry (kinds/Kind.ts, kinds/KindRegistry.ts and the kind-free helpers beside
// them), never a concrete kind (kinds/<group>/...), the list of built-in kinds, or a controller, not
// even through another module. Read from every source file's import and export lines.
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, normalize, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const srcDir = join(dirname(fileURLToPath(import.meta.url)), "..", "src")

/** Source files by path relative to src/, with their text. */
type Sources = ReadonlyMap<string, string>

const readSources = (dir: string): Sources => {
  const files = new Map<string, string>()
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts")) files.set(relative(dir, path).split("\\").join("/"), readFileSync(path, "utf8"))
    }
  }
  walk(dir)
  return files
}

// Every module specifier a file names: `import ... from`, `export ... from`, `import "..."` and `import("...")`.
const specifiers = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1] ?? "")

/** The files under src/ a file imports directly (relative specifiers only; packages are not src/). */
const importsOf = (file: string, text: string): ReadonlyArray<string> =>
  specifiers(text)
    .filter((s) => s.startsWith("."))
    .map((s) => normalize(join(dirname(file), s)).split("\\").join("/"))

const isMachinery = (file: string): boolean => file.startsWith("apiserver/") || file.startsWith("http/")

/** True for what the machinery may not reach: a controller, a concrete kind's folder, or the built-in kinds' list. */
const isForbidden = (file: string): boolean => file.startsWith("controllers/") || /^kinds\/[^/]+\//.test(file) || file === "kinds/Builtin.ts"

/** Each machinery file that reaches a forbidden file, with the chain of imports that leads there. */
const violations = (sources: Sources): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const start of [...sources.keys()].filter(isMachinery).sort()) {
    const seen = new Set<string>([start])
    const queue: Array<ReadonlyArray<string>> = [[start]]
    while (queue.length > 0) {
      const chain = queue.shift() ?? []
      const file = chain.at(-1) ?? ""
      for (const next of importsOf(file, sources.get(file) ?? "")) {
        if (seen.has(next)) continue
        seen.add(next)
        if (isForbidden(next)) found.push([...chain, next].join(" -> "))
        else queue.push([...chain, next])
      }
    }
  }
  return found
}

describe("the simulator's dependency rule", () => {
  it("holds: apiserver/ and http/ reach no concrete kind, no list of kinds and no controller", () => {
    const sources = readSources(srcDir)
    expect([...sources.keys()].filter(isMachinery).length).toBeGreaterThan(50)
    expect(violations(sources)).toEqual([])
  })

  it("catches a direct and an indirect import of a kind or a controller, of any form", () => {
    const sources: Sources = new Map([
      ["apiserver/verbs/Direct.ts", 'import { trainJob } from "../../kinds/trainer/trainjob/TrainJob.ts"\n'],
      ["apiserver/Typed.ts", 'import type { Kind } from "../kinds/Kind.ts"\nexport {\n  x\n} from "./store/Helper.ts"\n'],
      ["apiserver/store/Helper.ts", 'export const x = await import("../../controllers/Install.ts")\n'],
      ["http/Clean.ts", 'import type { KindRegistry } from "../kinds/KindRegistry.ts"\nimport { y } from "node:fs"\n'],
      ["http/All.ts", 'import "../kinds/Builtin.ts"\n'],
      ["kinds/Kind.ts", 'import { checkDns1123Subdomain } from "../apiserver/validation/NameRules.ts"\n']
    ])
    expect(violations(sources)).toEqual([
      "apiserver/Typed.ts -> apiserver/store/Helper.ts -> controllers/Install.ts",
      "apiserver/store/Helper.ts -> controllers/Install.ts",
      "apiserver/verbs/Direct.ts -> kinds/trainer/trainjob/TrainJob.ts",
      "http/All.ts -> kinds/Builtin.ts"
    ])
  })
})
