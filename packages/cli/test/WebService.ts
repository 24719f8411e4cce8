// The web page's tests and scripts run `dispatch serve --sim --signup` on a fresh PostgreSQL database, with one
// write token in the group that signed-up users join, so what the API makes through the token a logged-in user sees.
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { hashToken } from "@dispatch/server"
import { client, type Client } from "../../server/test/Fixtures.ts"
import { testPostgres } from "../../server/test/TestPostgres.ts"
import { background, ensureBuilt, processBoundMs, repoRoot } from "./DispatchBinary.ts"

const web = join(repoRoot, "packages", "web")
const builtPage = join(web, "dist", "app", "index.html")
// What the built page is made of: the app and the typed client it bundles (and the API declaration under it).
const pageSources = [join(web, "app"), join(repoRoot, "packages", "client", "src"), join(repoRoot, "packages", "server", "src")]
const buildLock = join(web, "dist", ".app-building")

const newest = (path: string): number => {
  const stat = statSync(path)
  return stat.isDirectory() ? Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name)))) : stat.mtimeMs
}
const mtime = (path: string) => {
  try {
    return statSync(path).mtimeMs
  } catch {
    return -Infinity
  }
}
const stale = () => mtime(builtPage) < Math.max(...pageSources.map(newest))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let webBuilt: Promise<void> | undefined

/**
 * Builds the web page (`vite build`) when it is older than its sources, as `pnpm build` does: the tests drive
 * what a user gets, never a stale page. Test files run in parallel workers, so one builds (holding a lock
 * directory) while the others wait for it.
 */
export const ensureWebBuilt = (): Promise<void> => {
  webBuilt ??= (async () => {
    mkdirSync(join(web, "dist"), { recursive: true })
    for (const end = Date.now() + processBoundMs; stale(); await sleep(200)) {
      if (Date.now() > end) throw new Error(`the web page was not built within ${processBoundMs} ms: run \`pnpm build\` (and remove ${buildLock} if a killed build left it)`)
      try {
        mkdirSync(buildLock, { recursive: false })
      } catch {
        continue
      }
      try {
        await new Promise<void>((resolve, reject) =>
          execFile(process.execPath, [join(repoRoot, "node_modules", "vite", "bin", "vite.js"), "build", "--config", join(web, "vite.config.ts")], { cwd: repoRoot, timeout: processBoundMs }, (error, _out, err) =>
            error === null ? resolve() : reject(new Error(`vite build failed: ${err}`))
          )
        )
      } finally {
        rmSync(buildLock, { recursive: true, force: true })
      }
    }
  })()
  return webBuilt
}

/** The group `--signup` puts new users in (the service's default sign-up group). */
export const signupGroup = "public"

/** A running `dispatch serve --sim --signup`: its origin, a writer's client, a signed-up user, and how to stop it. */
export interface WebService {
  readonly url: string
  readonly token: string
  readonly service: Client
  readonly user: { readonly username: string; readonly password: string }
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** Starts the job service on an embedded simulator (running each pod's command as a process with `exec`) and a
 * fresh database, and signs up a user through the API. */
export const startWebService = async ({ exec = false } = {}): Promise<WebService> => {
  await Promise.all([ensureBuilt(), ensureWebBuilt()])
  const dir = mkdtempSync(join(tmpdir(), "dispatch-web-"))
  const token = randomBytes(24).toString("base64url")
  const tokens = join(dir, "tokens.json")
  writeFileSync(tokens, JSON.stringify([{ name: "web-test", group: signupGroup, access: "write", tokenHash: hashToken(token, randomBytes(16)) }]))
  const database = await testPostgres()
  const served = await background(["serve"], ["--sim", ...(exec ? ["--exec"] : []), "--signup", "--data-dir", join(dir, "data"), "--tokens", tokens], undefined, { DATABASE_URL: database.url })
  const user = { username: "ada", password: "correct horse battery" }
  await client(served.url, undefined).typed((c) => c.users.create({ payload: { ...user, email: "ada@example.org", confirmPassword: user.password } }))
  return {
    url: served.url,
    token,
    service: client(served.url, token),
    user,
    stderr: served.stderr,
    stop: async () => {
      await served.stop()
      await database.release()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
