// Kueue names a job's Workload `<kind>-<job name>-<5 hex>`, the hex digits hashed from the job's
// identity, so the same job always maps to the same Workload name and a recreated job to a new one.
import { createHash } from "node:crypto"

const hashLength = 5
const maxNameLength = 253

/** The name of the Workload Kueue creates for the TrainJob with this name and uid. */
export const workloadNameFor = (jobName: string, jobUid: string): string => {
  const prefix = `trainjob-${jobName}`.slice(0, maxNameLength - hashLength - 1)
  const hash = createHash("sha1").update(["TrainJob", "trainer.kubeflow.org", jobName, jobUid].join("\n")).digest("hex")
  return `${prefix}-${hash.slice(0, hashLength)}`
}
