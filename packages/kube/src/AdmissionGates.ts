// Kueue's admission gates: the annotation on a Workload that lists, comma-separated, the names of the
// gates that keep it from admission. A controller removes its own name to let the Workload through.

/** The Workload annotation that lists its admission gates. */
export const admissionGatedBy = "kueue.x-k8s.io/admission-gated-by"

/** The longest admission gate name Kueue accepts. */
export const MAX_ADMISSION_GATE_LENGTH = 63

/** The gates an admission-gated-by annotation value lists (none when absent or empty; blanks ignored). */
export const parseAdmissionGates = (annotation: string | undefined): ReadonlyArray<string> =>
  (annotation ?? "").split(",").map((gate) => gate.trim()).filter((gate) => gate.length > 0)
