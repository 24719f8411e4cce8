// Every shell example in docs/ runs, as written, in the order each document gives them: blocks marked
// `<!-- doc-test: NAME [background] -->` run in a scratch project that holds the repository's examples and
// its installed packages, so `npx dispatch` finds the repository's own, as after the README's install.
// A block marked `<!-- doc-shown: WHY -->` is one no document can run (it needs a running workload), shown only.
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readmeBlocks, unmarkedShellBlocks } from "./ReadmeBlocks.ts"
import { blockTestMs, runBackground, runShell, stopGroup } from "./ShellBlocks.ts"
import { ensureBuilt } from "../packages/cli/test/DispatchBinary.ts"
import { type DocSetup, installDoc } from "./deploy/InstallDoc.ts"

const repo = fileURLToPath(new URL("..", import.meta.url))
const docs = readdirSync(join(repo, "docs")).filter((f) => f.endsWith(".md")).sort()
// What a document's blocks run against beyond the scratch project (deploy.md: a cluster, its database, a pod's stand-in).
const setups: Readonly<Record<string, () => DocSetup>> = { "deploy.md": installDoc }

describe("docs/", () => {
  it("marks every shell example for testing", () => {
    const missing = docs.flatMap((doc) => unmarkedShellBlocks(readFileSync(join(repo, "docs", doc), "utf8"), ["doc-test", "doc-shown"]).map((line) => `${doc}:${line}`))
    expect(missing).toEqual([])
  })

  for (const doc of docs) {
    const parsed = readmeBlocks(readFileSync(join(repo, "docs", doc), "utf8"), "doc-test")
    const blocks = "blocks" in parsed ? parsed.blocks : []
    if (blocks.length === 0) continue
    describe(doc, () => {
      let dir: string
      const started: Array<ChildProcess> = []
      const setup = setups[doc]?.()
      let env: Readonly<Record<string, string>> = {}
      beforeAll(async () => {
        await ensureBuilt()
        dir = mkdtempSync(join(tmpdir(), "dispatch-docs-"))
        symlinkSync(join(repo, "examples"), join(dir, "examples"))
        symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"))
        // What a clone holds that a document may point into (the Dioptra client's tests, the manifests).
        symlinkSync(join(repo, "packages"), join(dir, "packages"))
        symlinkSync(join(repo, "deploy"), join(dir, "deploy"))
        writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "dispatch-docs-scratch", private: true }))
        env = (await setup?.start(dir)) ?? {}
      }, blockTestMs)
      afterAll(async () => {
        await Promise.all(started.map(stopGroup))
        await setup?.stop()
        rmSync(dir, { recursive: true, force: true })
      })
      it("has well-formed markers", () => expect(parsed).toHaveProperty("blocks"))
      // Sequential: later blocks use what earlier ones started and wrote.
      for (const block of blocks) {
        it(`runs the "${block.name}" block verbatim`, async () => {
          await setup?.before[block.name]?.(dir)
          const ran = block.background ? await runBackground(block.body, dir, started, env) : await runShell(block.body, dir, env)
          expect(ran, `${ran.stdout}\n${ran.stderr}`.slice(-4000)).toMatchObject({ code: 0 })
        }, blockTestMs)
      }
    })
  }
})
