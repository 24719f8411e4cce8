// How deep a YAML text nests, read before it is composed: the yaml package's composer recurses, and a 40 KB text of
// `- - - …` or `[[[…` exhausts its stack or, at some depths, takes the whole process down (V8 runs out of memory
// compiling a regular expression on an exhausted stack). Its lexer and CST parser keep stacks of their own, so the
// nesting is measured on the CST, with a stack of ours, before anything recursive sees the text.
import { Parser } from "yaml"

const collections = new Set(["block-map", "block-seq", "flow-collection"])
const children = ["items", "key", "value", "sep", "start", "end"] as const

/** How deep the collections of a YAML text nest (every document's deepest); stops counting past `limit`. */
export const yamlDepth = (text: string, limit = Number.POSITIVE_INFINITY): number => {
  let deepest = 0
  for (const document of new Parser().parse(text)) {
    const pending: Array<readonly [unknown, number]> = [[document, 0]]
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [token, depth] = next
      if (typeof token !== "object" || token === null) continue
      const type = (token as { readonly type?: unknown }).type
      const inner = typeof type === "string" && collections.has(type) ? depth + 1 : depth
      if (inner > deepest) deepest = inner
      if (deepest > limit) return deepest
      for (const key of children) {
        const child = (token as Record<string, unknown>)[key]
        if (Array.isArray(child)) for (const item of child) pending.push([item, inner])
        else pending.push([child, inner])
      }
    }
  }
  return deepest
}
