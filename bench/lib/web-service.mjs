// The web page as a user gets it, for its bench and its screenshots: `vite build`, then the built `dispatch serve
// --sim --signup` on PGlite in a fresh directory (or a given PostgreSQL database), with one write token in the group signed-up users join.
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { serveReadyLine } from "../../packages/cli/dist/commands/ServeReady.js"
import { hashToken } from "../../packages/server/dist/index.js"
import { typedCaller } from "./api.mjs"

const repo = fileURLToPath(new URL("../..", import.meta.url))

/** The built web page's directory (what `dispatch serve` answers at `/`). */
export const webBuild = join(repo, "packages", "web", "dist", "app")

/** Builds the web page, as `pnpm build` does. */
export const buildWebPage = () =>
  execFileSync(process.execPath, [join(repo, "node_modules", "vite", "bin", "vite.js"), "build", "--config", join(repo, "packages", "web", "vite.config.ts")], { cwd: repo, stdio: "inherit" })

/** Starts the service (on `databaseUrl`, else PGlite); answers its origin, a typed caller acting with its write token, a signed-up user, and `stop`. */
export const startWebService = async (databaseUrl = "") => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-web-"))
  const token = randomBytes(24).toString("base64url")
  const tokens = join(dir, "tokens.json")
  writeFileSync(tokens, JSON.stringify([{ name: "web", group: "public", access: "write", tokenHash: hashToken(token, randomBytes(16)) }]))
  const child = spawn(process.execPath, [join(repo, "packages", "cli", "bin", "dispatch.js"), "serve", "--sim", "--signup", "--port", "0", "--data-dir", join(dir, "data"), "--tokens", tokens], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DATABASE_URL: databaseUrl }
  })
  let err = ""
  // Its URL once it listens, used once it serves (its ready line on stderr: the database is open).
  const url = await new Promise((resolve, reject) => {
    let out = ""
    const settle = () => {
      const found = /^(http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/.exec(out)?.[1]
      if (found !== undefined && new RegExp(`^${serveReadyLine}`, "m").test(err)) resolve(found)
    }
    child.stderr.on("data", (chunk) => ((err += chunk), settle()))
    child.stdout.on("data", (chunk) => ((out += chunk), settle()))
    child.once("exit", (code) => reject(new Error(`dispatch serve exited ${code}: ${err}`)))
  })
  const typed = (program) => typedCaller(token)(url, program)
  const user = { username: "ada", password: "correct horse battery" }
  await typedCaller(undefined)(url, (c) => c.users.create({ payload: { ...user, email: "ada@example.org", confirmPassword: user.password } }))
  const stop = async () => {
    if (child.exitCode === null) await new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGTERM")))
    rmSync(dir, { recursive: true, force: true })
  }
  return { url, token, typed, user, stop }
}

/** Logs `page` in through the login form as `user`. */
export const logIn = async (page, url, user) => {
  await page.goto(`${url}/#/login`)
  await page.getByTestId("login-username").fill(user.username)
  await page.getByTestId("login-password").fill(user.password)
  await page.getByTestId("login-submit").click()
  await page.getByTestId("logout").waitFor()
}
