// The README cannot drift from the truth: every block marked `<!-- readme-test: NAME -->` is run,
// verbatim, in a fresh copy of the repository (sources only: no node_modules, no builds), in the order
// the README gives them.
//
// Two commands are not run exactly as written, on purpose:
// - `main` is `<install> && <demo>`. The install is run with `--offline` added: the same pinned pnpm
//   and the same frozen lockfile, fed from the machine's pnpm store instead of the network, so the test
//   needs no network and cannot be slowed by it. Everything else about the install is real: it links
//   the dependencies into the copy and runs the root `prepare` script (`tsc -b`), so the copy's
//   `dispatch` is built from the copy's sources, and the demo then runs verbatim. The network install
//   is what `.ci/run` does on a clean clone (`pnpm install --frozen-lockfile`) before running this
//   suite.
// - `tests` runs this very suite; running it from inside itself would recurse. The test checks the
//   block calls the `test` script and that the script exists; `.ci/run` runs it.
//
// Blocks marked `background` are servers that later blocks talk to: each is started in its own process
// group, waited for until it prints its first line, and the whole group is stopped when the test ends.
import { type ChildProcess, execFile } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ReadmeBlock, readmeBlocks, unmarkedShellBlocks } from "./ReadmeBlocks.ts"
import { type Ran, blockBoundMs, blockTestMs, runBackground, runShell, shellEnv, stopGroup } from "./ShellBlocks.ts"

const repo = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(join(repo, "README.md"), "utf8")
const parsed = readmeBlocks(readme)
const blocks = "blocks" in parsed ? parsed.blocks : []

const pinnedPnpm = "npx -y pnpm@12.4.2"

/** What each block's output must show, beyond exiting 0. */
const expectations: Readonly<Record<string, (stdout: string) => void>> = {
  main: (out) => {
    expect(out).toContain("dispatch demo")
    expect(out).toMatch(/Succeeded/)
  },
  "tour-render": (out) => expect(out).toMatch(/kind: TrainingRuntime[\s\S]*---[\s\S]*kind: TrainJob/),
  "tour-serve": (out) => expect(out).toMatch(/^http:\/\/127\.0\.0\.1:\d+/),
  "tour-start": (out) => {
    expect(out).toContain("started ml-team/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17")
    expect(out).toMatch(/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17\s+Suspended/)
  },
  "tour-open": (out) => {
    expect(out).toContain("opened ml-team/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17")
    expect(out).toMatch(/: (Running|Succeeded)/)
    expect(out).toMatch(/01JD8X2Q4M7N9P3R5S6T8V0W1Y\s+17\s+(Running|Succeeded)\s/)
  },
  client: (out) => expect(out).toMatch(/^experiment \d+ resnet; job 999: ResourceNotFound$/m),
  library: (out) => expect(out).toMatch(/^started ml-team\/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17 \(uid [0-9a-f-]{36}\)$/m)
}

/** What a fresh clone holds: everything but git's data, installed dependencies, builds and local data. */
const notInAClone = new Set([".git", "node_modules", "dist", ".data", "coverage"])

// The CLI's packed examples come and go while the pack test runs beside this one (its prepack copies them in,
// its postpack removes them): a copy made then would stat a folder already gone. No clone has them.
const packedExamples = join(repo, "packages", "cli", "examples")

const copyRepository = (to: string): void =>
  cpSync(repo, to, { recursive: true, filter: (from) => !notInAClone.has(basename(from)) && !from.endsWith(".tsbuildinfo") && from !== packedExamples })

const runNode = (file: string, cwd: string): Promise<Ran> =>
  new Promise((resolve) => {
    execFile("node", [file], { cwd, timeout: blockBoundMs, env: shellEnv() }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    )
  })

const background: Array<ChildProcess> = []

const run = async (block: ReadmeBlock, cwd: string): Promise<Ran> => {
  if (block.lang === "ts") {
    // The library block is written to run as JavaScript too (its types are all inferred), so Node runs
    // it as is, from a package that depends on the packages it imports.
    const file = join(cwd, "packages", "cli", `readme-${block.name}.mjs`)
    writeFileSync(file, block.body)
    return runNode(file, cwd)
  }
  if (block.name === "main") {
    const [install, ...rest] = block.body.split(" && ")
    expect(install).toBe(`${pinnedPnpm} install`)
    const installed = await runShell(`${install} --offline`, cwd)
    if (installed.code !== 0) return installed
    return runShell(rest.join(" && "), cwd)
  }
  return block.background ? runBackground(block.body, cwd, background) : runShell(block.body, cwd)
}

describe("README", () => {
  let copy: string
  beforeAll(async () => {
    copy = mkdtempSync(join(tmpdir(), "dispatch-readme-"))
    copyRepository(copy)
  })
  afterAll(async () => {
    await Promise.all(background.map(stopGroup))
    rmSync(copy, { recursive: true, force: true })
  })

  it("marks its commands for testing, each once, and the first screen's two", () => {
    expect(parsed).toHaveProperty("blocks")
    expect(blocks.map((b) => b.name)).toEqual(expect.arrayContaining(["main", "tests", ...Object.keys(expectations)]))
  })

  it("marks every shell example, so none goes untested", () => {
    expect(unmarkedShellBlocks(readme, ["readme-test"])).toEqual([])
  })

  it("names the test script that exists", () => {
    const tests = blocks.find((b) => b.name === "tests")
    expect(tests?.body).toBe(`${pinnedPnpm} test`)
    const scripts = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
    expect(scripts["test"]).toBeDefined()
  })

  // Sequential: later blocks use what earlier ones started and wrote.
  for (const block of blocks.filter((b) => b.name !== "tests")) {
    it(`runs the "${block.name}" block verbatim`, async () => {
      const ran = await run(block, copy)
      expect(ran, `${ran.stdout}\n${ran.stderr}`.slice(-4000)).toMatchObject({ code: 0 })
      expectations[block.name]?.(ran.stdout)
    }, blockTestMs)
  }
})
