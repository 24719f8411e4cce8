// The JobSet Trainer makes for a TrainJob: named as the TrainJob, controlled by it, one replicated job
// per runtime replicated job with the pod template Trainer renders, suspended while the TrainJob is.
// While suspended its template follows the TrainJob (runtime patches may change then); once running,
// only `suspend` is brought in line, as Trainer does.
import type { KubeObject, SystemClient } from "../../Api.ts"
import { asRecord, at, labelsOf, annotationsOf, nameOf, namespaceOf, sameJson, uidOf, type JsonRecord } from "../shared/KubeFields.ts"
import { renderedPodTemplate } from "./PodTemplates.ts"
import type { ReplicatedJob } from "./ReplicatedJobs.ts"
import { createObject, updateObject } from "../shared/StoreWrites.ts"
import { trainerApiVersion } from "../shared/WellKnown.ts"
import { jobSetApiVersion } from "../../kinds/jobset/JobSetNames.ts"

/** The JobSet `job` runs as, from its runtime's replicated jobs. */
export const buildJobSet = (job: KubeObject, runtime: KubeObject, jobs: ReadonlyArray<ReplicatedJob>): KubeObject => {
  const runtimeJobs = (at(runtime, "spec", "template", "spec", "replicatedJobs") ?? []) as ReadonlyArray<unknown>
  const labels = { ...labelsOf({ metadata: asRecord(at(runtime, "spec", "template", "metadata")) ?? {} }), ...asRecord(at(job, "spec", "labels")) }
  const annotations = { ...annotationsOf({ metadata: asRecord(at(runtime, "spec", "template", "metadata")) ?? {} }), ...asRecord(at(job, "spec", "annotations")) }
  return {
    apiVersion: jobSetApiVersion,
    kind: "JobSet",
    metadata: {
      name: nameOf(job),
      namespace: namespaceOf(job) ?? "default",
      ...(Object.keys(labels).length === 0 ? {} : { labels }),
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
      ownerReferences: [{ apiVersion: trainerApiVersion, kind: "TrainJob", name: nameOf(job), uid: uidOf(job), controller: true, blockOwnerDeletion: true }]
    },
    spec: {
      suspend: at(job, "spec", "suspend") === true,
      network: { enableDNSHostnames: true, subdomain: nameOf(job), publishNotReadyAddresses: true },
      replicatedJobs: jobs.map((replicated) => {
        const source = runtimeJobs.find((entry) => at(entry, "name") === replicated.name)
        const jobSpec = asRecord(at(source, "template", "spec")) ?? {}
        const jobMeta = asRecord(at(source, "template", "metadata"))
        return {
          name: replicated.name,
          replicas: replicated.replicas,
          template: {
            ...(jobMeta === undefined ? {} : { metadata: jobMeta }),
            spec: {
              ...jobSpec,
              parallelism: replicated.parallelism,
              completions: replicated.parallelism,
              completionMode: "Indexed",
              template: renderedPodTemplate(job, runtime, replicated)
            }
          }
        }
      })
    }
  }
}

// Stored JobSet specs known to be what `ensureJobSet` wants for a TrainJob's spec and runtime spec (both
// frozen stored parts, so the same object means the same content; the JobSet reads nothing else of the
// runtime, whose metadata Start rewrites): a TrainJob looked at again with nothing changed costs a lookup,
// not a JobSet's rendering and comparison.
// Module state that is a pure memo cache of constant input (frozen parts): every simulator may share it.
const upToDate = new WeakMap<object, { readonly jobSpec: unknown; readonly runtimeSpec: unknown }>()

const remember = (stored: KubeObject | undefined, job: KubeObject, runtime: KubeObject): boolean => {
  const spec = stored?.["spec"]
  if (typeof spec === "object" && spec !== null) upToDate.set(spec, { jobSpec: job["spec"], runtimeSpec: runtime["spec"] })
  return stored !== undefined
}

/** Creates or updates `job`'s JobSet; true when it wrote. */
export const ensureJobSet = (system: SystemClient, job: KubeObject, runtime: KubeObject, jobs: ReadonlyArray<ReplicatedJob>): boolean => {
  const existing = system.get("jobsets", namespaceOf(job) ?? "default", nameOf(job))
  if (existing === undefined) return remember(createObject(system, "jobsets", buildJobSet(job, runtime, jobs)), job, runtime)
  const owned = (at(existing, "metadata", "ownerReferences") as ReadonlyArray<JsonRecord> | undefined)?.some((owner) => owner["uid"] === uidOf(job)) === true
  if (!owned) return false
  const known = typeof existing["spec"] === "object" && existing["spec"] !== null ? upToDate.get(existing["spec"]) : undefined
  if (known !== undefined && known.jobSpec === job["spec"] && known.runtimeSpec === runtime["spec"]) return false
  const spec = asRecord(existing["spec"]) ?? {}
  const wantedSpec = asRecord(buildJobSet(job, runtime, jobs)["spec"]) ?? {}
  // A suspended JobSet takes the TrainJob's whole template; a running one only its suspend flag.
  const next = spec["suspend"] === true ? wantedSpec : { ...spec, suspend: wantedSpec["suspend"] }
  if (sameJson(next, spec)) return !remember(existing, job, runtime)
  return remember(updateObject(system, "jobsets", { ...existing, spec: next }), job, runtime)
}
