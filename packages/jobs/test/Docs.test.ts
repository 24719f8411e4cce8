import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as Jobs from "../src/index.ts"

const doc = readFileSync(fileURLToPath(new URL("../../../docs/jobs.md", import.meta.url)), "utf8")
const grouped = (n: number) => n.toLocaleString("en-US")

describe("docs/jobs.md", () => {
  const errorNames = Object.values(Jobs as Record<string, unknown>).flatMap((v) =>
    typeof v === "function" && v.prototype instanceof Error ? [v.name] : []
  )

  it("names every kind of problem the package can return", () => {
    expect(errorNames.length).toBeGreaterThan(25)
    expect(errorNames.filter((name) => !doc.includes(`\`${name}\``))).toEqual([])
  })

  it("names the env variables a container reads and states the limits the code uses", () => {
    for (const text of [Jobs.jobIdKey, Jobs.documentChunksKey, `${Jobs.documentChunkPrefix}0`]) expect(doc).toContain(`\`${text}\``)
    for (const n of [Jobs.documentChunkBytes, Jobs.maxDocumentBytes, Jobs.maxTimeoutSeconds]) expect(doc).toContain(grouped(n))
    expect(doc).toContain(`At most ${Jobs.maxDocumentChunks} chunks`)
  })

  it("lists the status transitions the state machine allows", () => {
    for (const [from, changes] of Object.entries(Jobs.allowedChanges)) expect(doc).toContain(`${from} -> ${changes.join(", ")}`)
  })
})

describe("docs/jobs.md, the dispatch state machine", () => {
  it("shows the machine's own table", () => {
    const start = doc.indexOf("<!-- dispatch-table: start -->\n")
    const end = doc.indexOf("\n<!-- dispatch-table: end -->")
    expect(start).toBeGreaterThan(0)
    expect(doc.slice(start + "<!-- dispatch-table: start -->\n".length, end)).toBe(Jobs.dispatchTable(Jobs.defaultRetryPolicy))
  })
  it("names every state", () => {
    for (const kind of Jobs.dispatchStateKinds) expect(doc).toContain(`| \`${kind}\` |`)
  })
})
