// What each test file that runs `dispatch serve` processes sets up the same way: the built CLI, a temporary
// directory, a write token and the tokens file that accepts it, and the processes it started, stopped at the end.
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { hashToken } from "@dispatch/server"
import { ensureBuilt, processTestMs, type Served } from "../DispatchBinary.ts"

/** The file's directory (named from `prefix`), its write token of group `team`, the tokens file, and the list its
 * `dispatch serve` processes go in: each is stopped, and the directory removed, after the file's tests. */
export const useServeFixture = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const token = randomBytes(24).toString("base64url")
  const tokensFile = join(dir, "tokens.json")
  const started: Array<Served> = []
  beforeAll(async () => {
    await ensureBuilt()
    writeFileSync(tokensFile, JSON.stringify([{ name: "t", group: "team", access: "write", tokenHash: hashToken(token, randomBytes(16)) }]))
  }, processTestMs)
  afterAll(async () => {
    for (const s of started) await s.stop()
    rmSync(dir, { recursive: true, force: true })
  })
  return { dir, token, tokensFile, started }
}
