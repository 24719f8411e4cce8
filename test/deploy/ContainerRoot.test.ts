// The Containerfile's steps, without a container engine: deploy/container/build-root.sh packs the production root
// the image copies to /app, and `dispatch serve` started from that directory alone (a data directory in the temp
// dir, Node and nothing else of this repository) serves: /readyz answers 200 and its web page is there. Offline:
// pnpm takes every package from the store this checkout was installed from.
import { execFile, spawn } from "node:child_process"
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, sep } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, processBoundMs, processTestMs, repoRoot } from "../../packages/cli/test/DispatchBinary.ts"
import { serveReadyLine } from "../../packages/cli/src/commands/ServeReady.ts"

const dir = mkdtempSync(join(tmpdir(), "dispatch-container-"))
const root = join(dir, "app")

// The packages in the root's virtual store, by name (`@scope/name` or `name`).
const storedPackages = (): ReadonlyArray<string> =>
  readdirSync(join(root, "node_modules", ".pnpm")).flatMap((entry) => {
    const modules = join(root, "node_modules", ".pnpm", entry, "node_modules")
    try {
      return readdirSync(modules).flatMap((name) => (name.startsWith("@") ? readdirSync(join(modules, name)).map((n) => `${name}/${n}`) : [name]))
    } catch {
      return []
    }
  })

// Every symbolic link under `at`, followed into no directory it links to.
const links = (at: string): ReadonlyArray<string> =>
  readdirSync(at, { withFileTypes: true }).flatMap((entry) => {
    const path = join(at, entry.name)
    if (entry.isSymbolicLink()) return [path]
    return entry.isDirectory() ? links(path) : []
  })

describe("deploy/container/build-root.sh", () => {
  let packed: { readonly code: number; readonly stderr: string }
  beforeAll(async () => {
    await ensureBuilt()
    packed = await new Promise((resolve) =>
      execFile(join(repoRoot, "deploy", "container", "build-root.sh"), [root, "--offline"], { cwd: repoRoot, timeout: processBoundMs }, (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stderr })
      )
    )
  }, processTestMs)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("packs the command with its production dependencies only, nothing linked outside the root", () => {
    expect(packed.code, packed.stderr).toBe(0)
    expect(lstatSync(join(root, "bin", "dispatch.js")).isFile()).toBe(true)
    const stored = new Set(storedPackages())
    for (const runtime of ["effect", "@kubernetes/client-node", "@electric-sql/pglite", "pg", "yaml", "@dispatch/server", "@dispatch/web"]) expect(stored.has(runtime), runtime).toBe(true)
    for (const development of ["vitest", "typescript", "vite", "fast-check", "@stryker-mutator/core", "playwright-core", "@types/pg"]) expect(stored.has(development), development).toBe(false)
    const outside = links(join(root, "node_modules")).filter((link) => {
      try {
        return !realpathSync(link).startsWith(`${realpathSync(root)}${sep}`)
      } catch {
        return true
      }
    })
    expect(outside).toEqual([])
  })

  it("serves from that directory alone: /readyz answers 200, and the web page is there", async () => {
    expect(packed.code, packed.stderr).toBe(0)
    const cwd = join(dir, "run")
    mkdirSync(cwd)
    // Node and the root, nothing else: no NODE_PATH, no package of this checkout, the data directory in the temp dir.
    const child = spawn(process.execPath, [join(root, "bin", "dispatch.js"), "serve", "--port", "0", "--data-dir", join(dir, "data")], {
      cwd,
      env: { PATH: process.env["PATH"] ?? "", HOME: dir },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => void (out += chunk.toString()))
    const ready = new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString()
        const url = /^(http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/.exec(out)?.[1]
        if (url !== undefined && new RegExp(`^${serveReadyLine}`, "m").test(err)) resolve(url)
      })
      child.once("exit", (code) => reject(new Error(`dispatch serve exited ${code}: ${err}`)))
    })
    try {
      const url = await ready
      expect((await fetch(`${url}/readyz`)).status).toBe(200)
      const page = await fetch(`${url}/`)
      expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"])
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve))
        child.kill("SIGTERM")
        await exited
      }
    }
  }, processTestMs)
})
