// How deeply a request body nests, read from its text before it is parsed: the YAML parser recurses
// once per level and runs out of stack (or memory) on a deep enough body, so depth is checked first.
// JSON is measured exactly; YAML from above (indentation levels, compact `- ` entries and flow
// brackets, quoted or not), so a body passing here nests no deeper than measured.

const open = (c: number): boolean => c === 0x7b || c === 0x5b
const close = (c: number): boolean => c === 0x7d || c === 0x5d

/** The nesting depth of JSON text (exact for valid JSON); counting stops once past `limit`. */
export const jsonTextDepth = (text: string, limit: number = Number.POSITIVE_INFINITY): number => {
  let depth = 0
  let deepest = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // Most of a body is strings: jump to the closing quote (one not escaped) instead of reading them.
      const end = closingQuote(text, i + 1)
      if (end < 0) return deepest
      i = end
    } else if (open(c)) {
      depth++
      if (depth > deepest) deepest = depth
      if (deepest > limit) return deepest
    } else if (close(c)) depth--
  }
  return deepest
}

// The index of the quote that ends a string begun before `from`, or -1 when it never ends: a quote
// after an odd run of backslashes is escaped.
const closingQuote = (text: string, from: number): number => {
  let at = text.indexOf('"', from)
  while (at >= 0) {
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return at
    at = text.indexOf('"', at + 1)
  }
  return -1
}

/** An upper bound on the nesting depth of YAML text; counting stops once past `limit`. */
export const yamlTextDepth = (text: string, limit: number = Number.POSITIVE_INFINITY): number => {
  // Each open block line with the depth it reaches: a line nests one level below the nearest line less
  // indented, plus one level for each compact `- `, `? ` or `: ` it opens (`- - k:` is three levels), so
  // a deeper line under it starts from that depth, not from its parent's.
  const blocks: Array<{ readonly indent: number; readonly depth: number }> = []
  let flow = 0
  let deepest = 0
  for (const line of text.split("\n")) {
    const content = line.replace(/^ +/, "")
    const indent = line.length - content.length
    let lineDepth = blocks.at(-1)?.depth ?? 0
    if (content.trim() !== "" && !content.startsWith("#")) {
      while (blocks.length > 0 && (blocks.at(-1)?.indent ?? 0) >= indent) blocks.pop()
      const compact = /^(?:[-?:](?:[ \t]+|$))*/.exec(content)?.[0].replace(/[ \t]/g, "").length ?? 0
      lineDepth = (blocks.at(-1)?.depth ?? 0) + 1 + compact
      blocks.push({ indent, depth: lineDepth })
    }
    let flowDeepest = flow
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i)
      if (open(c)) flowDeepest = Math.max(flowDeepest, ++flow)
      else if (close(c)) flow = Math.max(0, flow - 1)
    }
    deepest = Math.max(deepest, lineDepth + flowDeepest)
    if (deepest > limit) return deepest
  }
  return deepest
}
