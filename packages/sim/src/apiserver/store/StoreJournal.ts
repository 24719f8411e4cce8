// The simulator's store and clock kept in a directory, so that a simulator made on it again resumes where
// the last one stopped: its objects with their uids and resourceVersions, the revision counter, the clock.
// Two files: `snapshot.json`, the whole store at one revision, replaced atomically (temp file, fsync,
// rename, fsync of the directory); and `journal.ndjson`, one line per change after it, appended with one
// write each. A killed process loses nothing it wrote (the kernel has it); a torn last line, the only
// thing a kill mid-write can leave, is dropped and cut off on the next open. Changes are fsynced at
// most `flushMs` apart, so a machine that loses power loses at most that much. When the journal outgrows
// the snapshot it is folded into a new one and emptied; a crash between the two leaves journal lines at
// or below the snapshot's revision, which replay skips.
import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs"
import { join } from "node:path"
import type { KubeObject } from "../../Api.ts"
import { isJsonObject } from "./JsonValue.ts"
import { objectKey, type Store, type StoredChange } from "./Store.ts"

/** The snapshot's file name in the state directory. */
export const snapshotFile = "snapshot.json"

/** The journal's file name in the state directory. */
export const journalFile = "journal.ndjson"

const snapshotFormat = "dispatch-sim-state/1"

/** What a state directory held: the store's objects, its revision and the clock. */
export interface RestoredState {
  readonly revision: number
  readonly clock: number
  readonly objects: ReadonlyArray<{ readonly resource: string; readonly object: KubeObject }>
}

/** How often changes reach the disk, and when the journal is folded into the snapshot. */
export interface StoreJournalOptions {
  /** The longest time between fsyncs (default 200 ms). */
  readonly flushMs?: number
  /** The journal is folded into a new snapshot once it is this large and larger than the snapshot (default 4 MiB). */
  readonly compactBytes?: number
  /**
   * Called once when a write to the directory fails (a full disk, a lost mount); journaling stops. By
   * default the error is thrown outside the write, so the process stops loudly, as a server whose
   * database cannot write does, rather than go on without keeping its state.
   */
  readonly onFailure?: (error: StoreJournalError) => void
  /** Appends text to the journal's file (default `fs.writeSync`); a test stands a full disk in here. */
  readonly write?: (fd: number, text: string) => void
}

/** A state directory that could not be opened or read, with every reason. */
export class StoreJournalError extends Error {
  readonly _tag = "StoreJournalError"
  constructor(
    readonly dir: string,
    readonly reasons: ReadonlyArray<string>
  ) {
    const more = reasons.length - listedProblems
    super(`the simulator's state in ${dir} cannot be used: ${reasons.slice(0, listedProblems).join("; ")}${more > 0 ? `; and ${more} more` : ""}`)
  }
}

// One journal line: a write or removal at a revision (the clock it happened at with it), or the clock alone.
type JournalLine =
  | { readonly revision: number; readonly clock: number; readonly resource: string; readonly type: "put"; readonly object: KubeObject }
  | { readonly revision: number; readonly clock: number; readonly resource: string; readonly type: "remove"; readonly key: string }
  | { readonly clock: number }

// A resource's plural, as the journal names it: which resources are served is the simulator's to say
// when it resumes (checkServed), so a journal can be read whatever kinds its simulator serves.
const isPlural = (value: unknown): value is string => typeof value === "string" && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value)

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0

// The clock moves with real time on a served simulator, so it may be any finite number of ms.
const isClock = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0

/** How many problems an error lists before it only counts the rest. */
const listedProblems = 10

const lineOf = (change: StoredChange, clock: number): JournalLine =>
  change.type === "DELETED"
    ? { revision: change.revision, clock, resource: change.resource, type: "remove", key: objectKey(change.object) }
    : { revision: change.revision, clock, resource: change.resource, type: "put", object: change.object }

// Reads one parsed line, or says what is wrong with it.
const readLine = (value: unknown): JournalLine | string => {
  if (!isJsonObject(value) || !isClock(value["clock"])) return "not a journal record (an object with a clock)"
  if (value["revision"] === undefined) return { clock: value["clock"] }
  const { revision, resource, type } = value
  if (!isCount(revision)) return "its revision is not a whole number"
  if (!isPlural(resource)) return `resource ${JSON.stringify(resource)} is not a resource name`
  if (type === "put") return isJsonObject(value["object"]) ? { revision, clock: value["clock"], resource, type, object: value["object"] } : "a put without an object"
  if (type === "remove") return typeof value["key"] === "string" ? { revision, clock: value["clock"], resource, type, key: value["key"] } : "a remove without a key"
  return `type ${JSON.stringify(type)} is neither put nor remove`
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw cause
  }
}

const reasonOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

// The snapshot's state, or every problem with it.
const readSnapshot = (text: string): { readonly state: RestoredState } | { readonly problems: ReadonlyArray<string> } => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    return { problems: [`${snapshotFile} is not JSON: ${reasonOf(cause)}`] }
  }
  if (!isJsonObject(value) || value["format"] !== snapshotFormat) return { problems: [`${snapshotFile} is not a ${snapshotFormat} snapshot`] }
  const problems: Array<string> = []
  if (!isCount(value["revision"])) problems.push(`${snapshotFile}: revision is not a whole number`)
  if (!isClock(value["clock"])) problems.push(`${snapshotFile}: clock is not a number of milliseconds`)
  const entries = Array.isArray(value["objects"]) ? value["objects"] : (problems.push(`${snapshotFile}: objects is not a list`), [])
  const objects = entries.flatMap((entry: unknown, i: number) => {
    const resource = isJsonObject(entry) ? entry["resource"] : undefined
    const object = isJsonObject(entry) ? entry["object"] : undefined
    if (isPlural(resource) && isJsonObject(object)) return [{ resource, object }]
    problems.push(`${snapshotFile}: object ${i} is not a resource's object`)
    return []
  })
  return problems.length > 0 ? { problems } : { state: { revision: Number(value["revision"]), clock: Number(value["clock"]), objects } }
}

const syncDirectory = (dir: string): void => {
  const fd = openSync(dir, "r")
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** The state directory, opened: what it held (undefined when it held nothing), and the journal that keeps what follows. */
export class StoreJournal {
  private fd: number
  private journalBytes: number
  private snapshotBytes: number
  private dirty = false
  private lastClock: number
  private timer: ReturnType<typeof setInterval> | undefined
  private unsubscribe: (() => void) | undefined
  private store: Store | undefined
  private now: () => number = () => this.lastClock
  private readonly flushMs: number
  private readonly compactBytes: number
  private readonly onFailure: (error: StoreJournalError) => void
  private readonly write: (fd: number, text: string) => void

  private constructor(
    /** The directory. */
    readonly dir: string,
    /** What the directory held, undefined when it held nothing. */
    readonly restored: RestoredState | undefined,
    fd: number,
    journalBytes: number,
    snapshotBytes: number,
    options: StoreJournalOptions
  ) {
    this.fd = fd
    this.journalBytes = journalBytes
    this.snapshotBytes = snapshotBytes
    this.lastClock = restored?.clock ?? 0
    this.flushMs = options.flushMs ?? 200
    this.compactBytes = options.compactBytes ?? 4 * 1024 * 1024
    this.write = options.write ?? ((fd, text) => void writeSync(fd, text))
    this.onFailure =
      options.onFailure ??
      ((error) =>
        setImmediate(() => {
          throw error
        }))
  }

  /** Refuses what the directory held when some of it is of a resource the resuming simulator does not serve. */
  checkServed(serves: (plural: string) => boolean): void {
    const unserved = [...new Set((this.restored?.objects ?? []).map((o) => o.resource).filter((plural) => !serves(plural)))]
    if (unserved.length > 0) throw new StoreJournalError(this.dir, unserved.map((plural) => `resource ${JSON.stringify(plural)} is not one the simulator serves`))
  }

  /**
   * Opens (creating it if needed) a state directory and reads what it holds: the snapshot, then the
   * journal's lines past it. A torn last line is cut off; anything else unreadable is an error naming
   * every problem, and nothing is changed.
   */
  static open(dir: string, options: StoreJournalOptions = {}): StoreJournal {
    try {
      mkdirSync(dir, { recursive: true })
      const snapshotText = readText(join(dir, snapshotFile))
      const snapshot = snapshotText === undefined ? undefined : readSnapshot(snapshotText)
      if (snapshot !== undefined && "problems" in snapshot) throw new StoreJournalError(dir, snapshot.problems)
      const journalPath = join(dir, journalFile)
      const journalText = readText(journalPath) ?? ""
      // A line without its newline is a write a kill cut short: it was never finished, so never acknowledged.
      const complete = journalText.slice(0, journalText.lastIndexOf("\n") + 1)
      const problems: Array<string> = []
      const lines = complete
        .split("\n")
        .slice(0, -1)
        .flatMap((text, i) => {
          let line: JournalLine | string
          try {
            line = readLine(JSON.parse(text))
          } catch (cause) {
            line = `not JSON: ${reasonOf(cause)}`
          }
          if (typeof line === "string") problems.push(`${journalFile} line ${i + 1}: ${line}`)
          return typeof line === "string" ? [] : [line]
        })
      if (problems.length > 0) throw new StoreJournalError(dir, problems)
      const restored = replay(snapshot?.state, lines)
      const fd = openSync(journalPath, "a")
      if (complete.length < journalText.length) ftruncateSync(fd, Buffer.byteLength(complete))
      return new StoreJournal(dir, restored, fd, Buffer.byteLength(complete), snapshotText === undefined ? 0 : Buffer.byteLength(snapshotText), options)
    } catch (cause) {
      if (cause instanceof StoreJournalError) throw cause
      throw new StoreJournalError(dir, [reasonOf(cause)])
    }
  }

  /** Journals every change `store` makes from now on, stamped with `now()`, and fsyncs them at most `flushMs` apart. */
  attach(store: Store, now: () => number): void {
    this.store = store
    this.now = now
    this.unsubscribe = store.subscribe((change) => this.append(lineOf(change, now())))
    this.timer = setInterval(() => this.flush(), this.flushMs)
    this.timer.unref()
  }

  /** Records the clock if it moved, fsyncs the journal, and folds it into a new snapshot once it has grown enough. */
  flush(): void {
    const clock = this.now()
    if (clock > this.lastClock) this.append({ clock })
    this.guarded(() => {
      if (this.dirty) fsyncSync(this.fd)
      this.dirty = false
    })
    if (this.journalBytes >= this.compactBytes && this.journalBytes > this.snapshotBytes) this.compact()
  }

  /** Writes the whole attached store as the new snapshot and empties the journal (nothing before `attach`). */
  compact(): void {
    const store = this.store
    if (store === undefined || this.fd < 0) return
    this.guarded(() => this.writeSnapshot(store))
  }

  private writeSnapshot(store: Store): void {
    const objects = [...store.resources()].flatMap((plural) => [...store.all(plural)].map((object) => ({ resource: plural, object })))
    const text = JSON.stringify({ format: snapshotFormat, revision: store.currentRevision(), clock: Math.max(this.lastClock, this.now()), objects })
    const temp = join(this.dir, `${snapshotFile}.tmp`)
    const fd = openSync(temp, "w")
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, join(this.dir, snapshotFile))
    syncDirectory(this.dir)
    ftruncateSync(this.fd, 0)
    this.journalBytes = 0
    this.snapshotBytes = Buffer.byteLength(text)
  }

  /** Flushes, stops journaling and closes the journal; later calls do nothing. */
  close(): void {
    if (this.fd < 0) return
    this.flush()
    clearInterval(this.timer)
    this.unsubscribe?.()
    if (this.fd >= 0) closeSync(this.fd)
    this.fd = -1
  }

  private append(line: JournalLine): void {
    if (this.fd < 0) return
    const text = `${JSON.stringify(line)}\n`
    // One write per line: a kill can tear only the line being written, which the next open cuts off.
    this.guarded(() => this.write(this.fd, text))
    this.journalBytes += Buffer.byteLength(text)
    this.lastClock = Math.max(this.lastClock, line.clock)
    this.dirty = true
  }

  // Runs a write to the directory; the first that fails stops journaling and is reported, never thrown
  // into the store's write (whose other listeners must still hear of it).
  private guarded(write: () => void): void {
    if (this.fd < 0) return
    try {
      write()
    } catch (cause) {
      clearInterval(this.timer)
      this.unsubscribe?.()
      try {
        closeSync(this.fd)
      } catch {
        // Already unusable: the failure below is what matters.
      }
      this.fd = -1
      this.onFailure(new StoreJournalError(this.dir, [`writing stopped: ${reasonOf(cause)}`]))
    }
  }
}

// The state after the snapshot and the journal lines past its revision; undefined when there was nothing.
const replay = (snapshot: RestoredState | undefined, lines: ReadonlyArray<JournalLine>): RestoredState | undefined => {
  if (snapshot === undefined && lines.length === 0) return undefined
  const byKey = new Map<string, { readonly resource: string; readonly object: KubeObject; readonly revision: number }>()
  const keyOf = (resource: string, key: string) => `${resource}|${key}`
  let revision = snapshot?.revision ?? 0
  let clock = snapshot?.clock ?? 0
  for (const { resource, object } of snapshot?.objects ?? []) byKey.set(keyOf(resource, objectKey(object)), { resource, object, revision: Number(object.metadata?.["resourceVersion"] ?? 0) })
  for (const line of lines) {
    clock = Math.max(clock, line.clock)
    if (!("revision" in line) || line.revision <= (snapshot?.revision ?? 0)) continue
    revision = Math.max(revision, line.revision)
    if (line.type === "put") byKey.set(keyOf(line.resource, objectKey(line.object)), { resource: line.resource, object: line.object, revision: line.revision })
    else byKey.delete(keyOf(line.resource, line.key))
  }
  // In revision order: each object comes back after those written before it, as they first came.
  const objects = [...byKey.values()].sort((a, b) => a.revision - b.revision).map(({ resource, object }) => ({ resource, object }))
  return { revision, clock, objects }
}
