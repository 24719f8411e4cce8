// Which TrainJobs read which runtime, kept from the store's change feed: when a runtime is written, only
// the jobs that read it need another look. Start creates a private runtime copy per job, so with a
// thousand jobs stored, looking at every job on every runtime write cost more than the writes did.
import type { KubeObject } from "../../Api.ts"
import { runtimeAddressOf } from "./Runtimes.ts"

/** The key of a runtime's place in the store: its resource, namespace and name. */
export const runtimeKey = (resource: string, namespace: string | undefined, name: string): string => `${resource}/${namespace ?? ""}/${name}`

/** The key of the runtime `job` reads, or undefined when its reference names none. */
export const runtimeKeyOf = (job: KubeObject): string | undefined => {
  const address = runtimeAddressOf(job)
  return "problem" in address ? undefined : runtimeKey(address.resource, address.namespace, address.name)
}

/** TrainJob keys by the runtime key they read (and back), as the last change of each job says. */
export class RuntimeReaders {
  private readonly byRuntime = new Map<string, Set<string>>()
  private readonly byJob = new Map<string, string>()

  /** Records that the job at `jobKey` now reads the runtime at `runtime` (undefined: none, or the job is gone). */
  track(jobKey: string, runtime: string | undefined): void {
    const before = this.byJob.get(jobKey)
    if (before === runtime) return
    if (before !== undefined) {
      const readers = this.byRuntime.get(before)
      readers?.delete(jobKey)
      if (readers?.size === 0) this.byRuntime.delete(before)
      this.byJob.delete(jobKey)
    }
    if (runtime === undefined) return
    this.byJob.set(jobKey, runtime)
    const readers = this.byRuntime.get(runtime)
    if (readers === undefined) this.byRuntime.set(runtime, new Set([jobKey]))
    else readers.add(jobKey)
  }

  /** Whether the job at `jobKey` is recorded as reading a runtime. */
  knows(jobKey: string): boolean {
    return this.byJob.has(jobKey)
  }

  /** The keys of the jobs that read the runtime at `runtime`. */
  readersOf(runtime: string): ReadonlySet<string> {
    return this.byRuntime.get(runtime) ?? noReaders
  }
}

const noReaders: ReadonlySet<string> = new Set()
