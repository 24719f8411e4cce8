import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Result } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { renderStart, WORKDIR_MISSING_EXIT, type StartRequest } from "../src/index.ts"
import { exampleRequest, plainConfig, runtimeOf } from "./Generators.ts"

// The rendered command, run with the real /bin/sh and the rendered env, exactly as the container would.
const run = (command: ReadonlyArray<string>, workDir?: string) => {
  const request: StartRequest = { ...exampleRequest, spec: { ...exampleRequest.spec, command: [...command], ...(workDir === undefined ? {} : { workDir }) } }
  const r = renderStart(request, plainConfig, runtimeOf())
  if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
  const trainer = (r.success.trainJob["spec"] as Record<string, any>)["trainer"]
  const argv = trainer["command"] as Array<string>
  const env = Object.fromEntries((trainer["env"] as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]))
  return spawnSync(argv[0]!, argv.slice(1), { env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env }, cwd: "/" })
}

const scratch = mkdtempSync(join(tmpdir(), "dispatch-prologue-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const tricky = fc.constantFrom("a b", "'single'", '"double"', "$(touch /tmp/pwned)", "`id`", "*", "?", "[a-z]*", "$HOME", "${PATH}", "line\nbreak", "back\\slash", "-x", "--", "", " ", "\t", "é漢🙂", "%s%d")
const arg = fc.oneof(tricky, fc.string({ unit: "grapheme", maxLength: 30 }).filter((s) => !s.includes("\u0000")))

describe("the prologue under /bin/sh", () => {
  test.prop([fc.array(arg, { maxLength: 12 })], { numRuns: 40 })("passes every argument through byte for byte", (args) => {
    const r = run(["printf", "%s\\0", ...args])
    expect(r.status).toBe(0)
    const expected = args.length === 0 ? "\u0000" : args.map((a) => `${a}\u0000`).join("")
    expect(r.stdout.toString("utf8")).toBe(expected)
  })

  it("enters the workdir, absolute or relative, including one with spaces", () => {
    const spaced = join(scratch, "with space")
    expect(spawnSync("mkdir", ["-p", spaced]).status).toBe(0)
    expect(run(["pwd"], spaced).stdout.toString()).toBe(`${spaced}\n`)
    expect(run(["pwd"], spaced.slice(1)).stdout.toString()).toBe(`${spaced}\n`)
  })

  it("exits 125 when the workdir is missing, without running the command", () => {
    const r = run(["touch", join(scratch, "ran")], join(scratch, "missing"))
    expect(r.status).toBe(WORKDIR_MISSING_EXIT)
    expect(r.stderr.toString()).toContain("cannot enter workdir")
    expect(spawnSync("test", ["-e", join(scratch, "ran")]).status).not.toBe(0)
  })

  it("passes the command's exit status through", () => {
    expect(run(["sh", "-c", "exit 7"]).status).toBe(7)
  })
})
