// The README's tested blocks: each fenced block that follows a `<!-- readme-test: NAME [background] -->`
// comment, in the order they appear.

/** One fenced block marked for testing. */
export interface ReadmeBlock {
  readonly name: string
  /** Marked `background`: a server the later blocks talk to, stopped when the test ends. */
  readonly background: boolean
  readonly lang: string
  readonly body: string
}

const markerOf = (tag: string): RegExp => new RegExp(`^<!--\\s*${tag}:\\s*([\\w-]+)((?:\\s+[\\w-]+)*)\\s*-->\\s*$`)

/** Every block of `markdown` marked `<!-- TAG: NAME -->` (the README's `readme-test`, the docs' `doc-test`);
 * a marker not followed by a fenced block is an error in the document. */
export const readmeBlocks = (markdown: string, tag = "readme-test"): { readonly blocks: ReadonlyArray<ReadmeBlock> } | { readonly problems: ReadonlyArray<string> } => {
  const marker = markerOf(tag)
  const lines = markdown.split("\n")
  const blocks: Array<ReadmeBlock> = []
  const problems: Array<string> = []
  lines.forEach((line, i) => {
    const m = marker.exec(line)
    if (m === null) return
    const name = m[1] ?? ""
    const flags = (m[2] ?? "").trim().split(/\s+/).filter((f) => f !== "")
    const open = /^```(\w*)\s*$/.exec(lines[i + 1] ?? "")
    const close = lines.findIndex((l, j) => j > i + 1 && /^```\s*$/.test(l))
    if (open === null || close < 0) {
      problems.push(`line ${i + 1}: marker "${name}" is not followed by a fenced block`)
      return
    }
    blocks.push({ name, background: flags.includes("background"), lang: open[1] ?? "", body: lines.slice(i + 2, close).join("\n") })
  })
  const names = blocks.map((b) => b.name)
  for (const name of new Set(names)) if (names.filter((n) => n === name).length > 1) problems.push(`marker "${name}" is used more than once`)
  return problems.length > 0 ? { problems } : { blocks }
}

const shellFence = /^```(sh|bash|shell|console)\s*$/

/** The lines (1-based) of the shell blocks that no `<!-- TAG: ... -->` marker of `tags` names: examples that would go untested. */
export const unmarkedShellBlocks = (markdown: string, tags: ReadonlyArray<string>): ReadonlyArray<number> => {
  const lines = markdown.split("\n")
  const marker = new RegExp(`^<!--\\s*(${tags.join("|")}):`)
  return lines.flatMap((line, i) => (shellFence.test(line) && !marker.test(lines[i - 1] ?? "") ? [i + 1] : []))
}
