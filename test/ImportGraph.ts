// A small reader of the tree's imports, for the dependency rules: every source file's module specifiers,
// resolved to a file of the tree (relative ones) or named as a package (bare ones). It reads import and
// export lines as text; comment lines are left out so that prose naming a module is not an import.
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, posix, relative } from "node:path"
import { fileURLToPath } from "node:url"

/** Source files by path relative to the repository's root (with `/`), with their text. */
export type Sources = ReadonlyMap<string, string>

/** What a specifier names: a file of the tree, or a package with an optional subpath (`node:fs` is package `node:fs`). */
export type Target =
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Package"; readonly name: string; readonly subpath: string }

/** One import (or re-export) of one file. */
export interface Edge {
  readonly from: string
  readonly specifier: string
  readonly to: Target
}

const sourceFile = (name: string): boolean => /\.tsx?$/.test(name) && !name.endsWith(".d.ts")

/** Every .ts and .tsx file under the given folders of the repository (folders that don't exist are skipped). */
export const readSources = (root: string, folders: ReadonlyArray<string>): Sources => {
  const files = new Map<string, string>()
  const walk = (at: string): void => {
    let entries
    try {
      entries = readdirSync(at, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const path = join(at, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== "dist") walk(path)
      } else if (sourceFile(entry.name)) files.set(relative(root, path).split("\\").join("/"), readFileSync(path, "utf8"))
    }
  }
  for (const folder of folders) walk(join(root, folder))
  return files
}

// A line that is only comment: `// ...`, or inside a block comment (` * ...`, `/** ...`, `*/`).
const commentLine = /^\s*(?:\/\/|\/\*|\*)/

/** Every module specifier a file names: `import ... from`, `export ... from`, `import "..."`, `import("...")`. */
export const specifiers = (text: string): ReadonlyArray<string> => {
  const code = text
    .split("\n")
    .filter((line) => !commentLine.test(line))
    .join("\n")
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1] ?? "")
}

/** What a specifier of the file `from` names. */
export const targetOf = (from: string, specifier: string): Target => {
  if (specifier.startsWith(".")) return { _tag: "File", path: posix.normalize(posix.join(posix.dirname(from), specifier)) }
  const parts = specifier.split("/")
  const length = specifier.startsWith("@") ? 2 : 1
  return { _tag: "Package", name: parts.slice(0, length).join("/"), subpath: parts.slice(length).join("/") }
}

/** Each file's imports. */
export const edgesOf = (sources: Sources): ReadonlyArray<Edge> =>
  [...sources.entries()].flatMap(([from, text]) => specifiers(text).map((specifier) => ({ from, specifier, to: targetOf(from, specifier) })))

/** The package folder a repository path is in (`packages/sim/src/x.ts` is `sim`), or undefined. */
export const packageOf = (path: string): string | undefined => /^packages\/([^/]+)\//.exec(path)?.[1]

/** The repository's root, from this file's place in it. */
export const repositoryRoot = (moduleUrl: string): string => join(dirname(fileURLToPath(moduleUrl)), "..")

/**
 * The chains of imports from each file `from` accepts to a file `forbidden` accepts, through files of the tree;
 * a chain stops at its first forbidden file. Shortest chains first, one per forbidden file reached.
 */
export const reachingChains = (
  sources: Sources,
  from: (path: string) => boolean,
  forbidden: (path: string) => boolean
): ReadonlyArray<string> => {
  const imports = new Map<string, Array<string>>()
  for (const edge of edgesOf(sources)) {
    if (edge.to._tag !== "File") continue
    const list = imports.get(edge.from) ?? []
    list.push(edge.to.path)
    imports.set(edge.from, list)
  }
  const found: Array<string> = []
  for (const start of [...sources.keys()].filter(from).sort()) {
    const seen = new Set<string>([start])
    const queue: Array<ReadonlyArray<string>> = [[start]]
    while (queue.length > 0) {
      const chain = queue.shift() ?? []
      for (const next of imports.get(chain.at(-1) ?? "") ?? []) {
        if (seen.has(next)) continue
        seen.add(next)
        if (forbidden(next)) found.push([...chain, next].join(" -> "))
        else queue.push([...chain, next])
      }
    }
  }
  return found
}
