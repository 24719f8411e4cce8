// The packages are publishable: `pnpm pack` of each makes a tarball a project outside the repository can
// install and use. Each tarball's manifest is checked (a version, not private, exports and types that
// point at files the tarball holds, no workspace: ranges); then the tarballs are installed into a scratch
// project in a temporary directory, and the README's library example runs there and prints exactly what
// the README says, with none of dispatch's own log lines; the installed `dispatch` runs its demo from
// the examples its package carries.
//
// The install is pnpm's, fed from the machine's package store first (`--prefer-offline`): the third-party
// dependencies (effect, client-node, PGlite, ...) are the registry's published packages, the same the
// repository's lockfile pins; only what the store lacks is fetched. pnpm's strict node_modules also
// catches an import a package does not declare.
import { execFile } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, repoRoot } from "../packages/cli/test/DispatchBinary.ts"
import { readmeBlocks } from "./ReadmeBlocks.ts"
import { type Ran, blockBoundMs, shellEnv } from "./ShellBlocks.ts"

const pnpm = ["-y", "pnpm@12.4.2"]
const packages = readdirSync(join(repoRoot, "packages")).sort()

const run = (command: string, args: ReadonlyArray<string>, cwd: string): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: blockBoundMs, env: shellEnv() }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    )
  })

const ok = (ran: Ran): Ran => {
  expect(ran, `${ran.stdout}\n${ran.stderr}`.slice(-4000)).toMatchObject({ code: 0 })
  return ran
}

interface Manifest {
  readonly name: string
  readonly version?: string
  readonly private?: boolean
  readonly types?: string
  readonly files?: ReadonlyArray<string>
  readonly exports?: Readonly<Record<string, Readonly<Record<string, string>>>>
  readonly dependencies?: Readonly<Record<string, string>>
}

/** The files a tarball holds, without tar's `package/` prefix. */
const listing = async (tarball: string): Promise<ReadonlyArray<string>> =>
  ok(await run("tar", ["tzf", tarball], repoRoot)).stdout.split("\n").filter((l) => l !== "").map((l) => l.replace(/^package\//, ""))

const manifestOf = async (tarball: string): Promise<Manifest> => JSON.parse(ok(await run("tar", ["xzfO", tarball, "package/package.json"], repoRoot)).stdout) as Manifest

const library = (() => {
  const parsed = readmeBlocks(readFileSync(join(repoRoot, "README.md"), "utf8"))
  return "blocks" in parsed ? parsed.blocks.find((b) => b.name === "library") : undefined
})()

describe("the packed packages", () => {
  let dir: string
  let packed: string
  let scratch: string
  const tarballs = new Map<string, string>()

  beforeAll(async () => {
    await ensureBuilt()
    ok(await run("npx", ["tsc", "-b"], repoRoot))
    dir = mkdtempSync(join(tmpdir(), "dispatch-pack-"))
    packed = join(dir, "tarballs")
    scratch = join(dir, "scratch")
    ok(await run("npx", [...pnpm, "-r", "--filter", "./packages/*", "pack", "--pack-destination", packed], repoRoot))
    for (const file of readdirSync(packed)) tarballs.set((await manifestOf(join(packed, file))).name, join(packed, file))
  }, blockBoundMs)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("are one tarball per package", () => {
    expect([...tarballs.keys()].sort()).toEqual(packages.map((p) => `@dispatch/${p}`))
  })

  for (const name of packages) {
    it(`@dispatch/${name}: versioned, public, and its exports and types are in the tarball`, async () => {
      const tarball = tarballs.get(`@dispatch/${name}`) ?? ""
      const manifest = await manifestOf(tarball)
      const files = new Set(await listing(tarball))
      expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/)
      expect(manifest.private).toBeUndefined()
      expect(manifest.files).toContain("dist")
      const targets = Object.values(manifest.exports ?? {}).flatMap((conditions) => Object.entries(conditions))
      expect(targets.length).toBeGreaterThan(0)
      // Only conditions any consumer resolves: the repository's source condition points at src/, not shipped.
      expect(targets.map(([condition]) => condition).sort()).toEqual(expect.arrayContaining(["default", "types"]))
      expect(targets.filter(([condition]) => condition !== "default" && condition !== "types")).toEqual([])
      for (const [, target] of [...targets, ["types", manifest.types ?? ""] as const]) expect(files, target).toContain(target.replace(/^\.\//, ""))
      expect(Object.entries(manifest.dependencies ?? {}).filter(([, range]) => range.startsWith("workspace:"))).toEqual([])
      expect([...files].filter((f) => f.endsWith(".tsbuildinfo") || f.startsWith("test/"))).toEqual([])
    })
  }

  it("install into a project outside the repository, where the README's library example prints what the README says", async () => {
    expect(library?.lang).toBe("ts")
    const deps = Object.fromEntries([...tarballs].map(([name, tarball]) => [name, `file:${tarball}`]))
    const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
    // The example imports effect and yaml itself, as a user's project would.
    const own = { effect: root.devDependencies["effect"] ?? "", yaml: root.devDependencies["yaml"] ?? "" }
    cpSync(join(repoRoot, "examples"), join(scratch, "examples"), { recursive: true })
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "dispatch-pack-scratch", private: true, type: "module", dependencies: { ...deps, ...own } }, null, 2))
    // Each package names its siblings by version (0.1.0), not yet on a registry: the overrides point them at the tarballs.
    writeFileSync(join(scratch, "pnpm-workspace.yaml"), `overrides:\n${Object.entries(deps).map(([n, spec]) => `  "${n}": "${spec}"`).join("\n")}\n`)
    ok(await run("npx", [...pnpm, "install", "--prefer-offline"], scratch))
    writeFileSync(join(scratch, "library.mjs"), library?.body ?? "")
    const ran = ok(await run("node", ["library.mjs"], scratch))
    expect(ran.stdout).toMatch(/^started ml-team\/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17 \(uid [0-9a-f-]{36}\)\n$/)
    expect(ran.stderr).toBe("")
    const demo = ok(await run(join(scratch, "node_modules", ".bin", "dispatch"), ["demo"], scratch))
    expect(demo.stdout).toMatch(/Succeeded/)
    expect(ok(await run(join(scratch, "node_modules", ".bin", "dispatch"), ["--version"], scratch)).stdout).toBe(`dispatch ${(await manifestOf(tarballs.get("@dispatch/cli") ?? "")).version}\n`)
    // Without python3 on the PATH the demo's pod is the Node example the package carries, which loads the installed @dispatch/report.
    const noPython = join(dir, "no-python")
    mkdirSync(noPython)
    const nodeDemo = ok(
      await new Promise<Ran>((resolve) =>
        execFile(process.execPath, [join(scratch, "node_modules", "@dispatch", "cli", "bin", "dispatch.js"), "demo", "service", "--exec"], { cwd: scratch, timeout: blockBoundMs, env: { PATH: noPython } }, (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
        )
      )
    )
    expect(nodeDemo.stdout).toMatch(/node_modules\/@dispatch\/cli\/examples\/report-workload\.mjs as a local process/)
    expect(nodeDemo.stdout).toMatch(/^\s+INFO\s+report-workload: training done$/m)
    expect(nodeDemo.stdout).toMatch(/^\s+loss = [\d.]+ \(step \d+\)$/m)
  }, blockBoundMs)

  // The library is the Cluster port and the client-node adapter: an application that embeds it gets no
  // simulator (the simulator's adapter ships with the simulator, as @dispatch/sim/cluster).
  it("@dispatch/effects installs alone, without the simulator, and runs a program", async () => {
    const alone = join(dir, "alone")
    const deps = Object.fromEntries([...tarballs].map(([name, tarball]) => [name, `file:${tarball}`]))
    const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
    mkdirSync(alone)
    writeFileSync(join(alone, "package.json"), JSON.stringify({ name: "dispatch-effects-alone", private: true, type: "module", dependencies: { "@dispatch/effects": deps["@dispatch/effects"], effect: root.devDependencies["effect"] ?? "" } }, null, 2))
    // Every sibling is offered (overrides), so a dependency on any of them would be installed and seen.
    writeFileSync(join(alone, "pnpm-workspace.yaml"), `overrides:\n${Object.entries(deps).map(([n, spec]) => `  "${n}": "${spec}"`).join("\n")}\n`)
    ok(await run("npx", [...pnpm, "install", "--prefer-offline"], alone))
    const installed = readdirSync(join(alone, "node_modules", ".pnpm")).filter((entry) => entry.startsWith("@dispatch+")).map((entry) => entry.replace(/@file.*$/, ""))
    expect(installed.sort()).toEqual(["@dispatch+effects", "@dispatch+kube", "@dispatch+render"])
    expect(existsSync(join(alone, "node_modules", "@dispatch", "sim"))).toBe(false)
    writeFileSync(
      join(alone, "program.mjs"),
      [
        'import { Effect } from "effect"',
        'import { TrainJobs, describeCall, openBackend } from "@dispatch/effects"',
        'const backend = openBackend({ namespace: "ml-team", mode: "plain", runtimes: [{ kind: "TrainingRuntime", name: "dispatch-torch" }] })',
        'const line = await Effect.runPromise(Effect.sync(() => `${backend.gate.state} ${describeCall("get", TrainJobs, { namespace: "ml-team", name: "j" })}`))',
        "console.log(line)"
      ].join("\n")
    )
    const ran = ok(await run("node", ["program.mjs"], alone))
    expect(ran.stdout).toBe("open get trainjobs ml-team/j\n")
    expect(ran.stderr).toBe("")
  }, blockBoundMs)
})
