// One service per PGlite data directory. PGlite has no lock of its own: two processes on one directory both
// accept writes, hand out the same ids and corrupt what the other wrote. The lock is a file created with O_EXCL
// naming its holder; a holder that died without removing it (SIGKILL, a crash) is seen by its pid being gone.
import { randomBytes } from "node:crypto"
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import { Result } from "effect"

/** The lock file's name inside the data directory. */
export const lockFileName = "dispatch-serve.lock"

/** Who holds a data directory, as its lock file says. */
export interface LockHolder {
  readonly pid: number
  readonly host: string
  readonly since: string
  /** Distinguishes this holder from a later process that reuses its pid. */
  readonly token: string
}

/** A data directory this process holds; `release` removes the lock if it is still this process's. */
export interface DataDirLock {
  readonly path: string
  readonly release: () => Promise<void>
}

/** Whether a process with this pid runs on this host (EPERM: it runs, as another user). */
export const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === "EPERM"
  }
}

const readHolder = async (path: string): Promise<{ readonly text: string; readonly holder: LockHolder | undefined } | undefined> => {
  let text: string
  try {
    text = await readFile(path, "utf8")
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw cause
  }
  try {
    const holder = JSON.parse(text) as LockHolder
    return { text, holder: typeof holder.pid === "number" && typeof holder.host === "string" ? holder : undefined }
  } catch {
    return { text, holder: undefined }
  }
}

const refusal = (dataDir: string, path: string, holder: LockHolder | undefined): string =>
  holder === undefined
    ? `the data directory ${dataDir} is locked by ${path}, which does not say who holds it; if no dispatch serve uses ${dataDir}, delete ${path}`
    : `the data directory ${dataDir} is in use by dispatch serve pid ${holder.pid} on ${holder.host} since ${holder.since}; stop that process` +
      ` or give this one another --data-dir${holder.host === hostname() ? "" : `; if it no longer runs on ${holder.host}, delete ${path}`}`

/** Takes a data directory for this process, creating it if needed; the reason when another live process holds it.
 * A lock left by a process of this host that no longer runs is taken over. */
export const lockDataDir = async (dataDir: string, isAlive: (pid: number) => boolean = pidAlive): Promise<Result.Result<DataDirLock, string>> => {
  await mkdir(dataDir, { recursive: true })
  const path = join(dataDir, lockFileName)
  const mine: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: randomBytes(8).toString("hex") }
  const text = `${JSON.stringify(mine)}\n`
  // Twice at most: once, and once more after removing a dead holder's lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, text, { flag: "wx" })
      return Result.succeed({
        path,
        release: async () => {
          const now = await readHolder(path)
          if (now?.text === text) await unlink(path).catch(() => undefined)
        }
      })
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw cause
    }
    const found = await readHolder(path)
    if (found === undefined) continue
    const { holder } = found
    // A holder on another host, one that still runs, or a file being written right now cannot be judged dead.
    if (holder === undefined || holder.host !== hostname() || isAlive(holder.pid)) return Result.fail(refusal(dataDir, path, holder))
    // Remove the dead holder's lock only if it is still the file read, not a live process's that replaced it.
    const again = await readHolder(path)
    if (again?.text === found.text) await unlink(path).catch(() => undefined)
  }
  const last = await readHolder(path)
  return Result.fail(refusal(dataDir, path, last?.holder))
}
