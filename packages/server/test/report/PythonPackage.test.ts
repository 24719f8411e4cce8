// dispatch_report installs with nothing downloaded: `pip install ./python` into a fresh virtual environment with no
// package index at all (`--no-index`), with and without build isolation, and the installed module is the file.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, test } from "vitest"

const pythonDir = fileURLToPath(new URL("../../../../python/", import.meta.url))
const venv = mkdtempSync(join(tmpdir(), "dispatch-report-venv-"))
afterAll(() => rmSync(venv, { recursive: true, force: true }))

const run = (command: string, args: ReadonlyArray<string>) => {
  const done = spawnSync(command, [...args], { encoding: "utf8", timeout: 300_000 })
  return { code: done.status, out: `${done.stdout}${done.stderr}` }
}

describe("pip install ./python", { timeout: 600_000 }, () => {
  test.each([[[] as ReadonlyArray<string>], [["--no-build-isolation"]]])("needs no index and no build package (%j)", (flags) => {
    const made = run("python3", ["-m", "venv", "--clear", venv])
    expect(made.code, made.out).toBe(0)
    const pip = join(venv, "bin", "pip")
    // Only the standard library and pip: no setuptools (a venv may bring it: it is removed), no wheel.
    const removed = run(pip, ["uninstall", "-y", "--disable-pip-version-check", "setuptools"])
    expect(removed.code, removed.out).toBe(0)
    expect(run(join(venv, "bin", "python"), ["-c", "import setuptools"]).code).not.toBe(0)
    expect(run(join(venv, "bin", "python"), ["-c", "import wheel"]).code).not.toBe(0)
    const installed = run(pip, ["install", "--no-index", "--disable-pip-version-check", ...flags, pythonDir])
    expect(installed.code, installed.out).toBe(0)
    const where = run(join(venv, "bin", "python"), ["-c", "import dispatch_report, sys; sys.stdout.write(dispatch_report.__file__)"])
    expect(where.code, where.out).toBe(0)
    expect(readFileSync(where.out, "utf8")).toBe(readFileSync(join(pythonDir, "dispatch_report.py"), "utf8"))
  })
})
