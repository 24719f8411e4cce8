// Kueue's admission gates: the `kueue.x-k8s.io/admission-gated-by` annotation lists domain-prefixed gate
// names separated by commas. It may be set only at creation; afterwards gates can only be removed.

const gatePattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/

/** The gates listed in an annotation value (none when absent or empty). */
export const parseGates = (annotation: string | undefined): ReadonlyArray<string> =>
  (annotation ?? "").split(",").map((gate) => gate.trim()).filter((gate) => gate.length > 0)

/** Every reason an annotation value is not a valid list of gates. */
export const gateProblems = (path: string, annotation: string | undefined): ReadonlyArray<string> =>
  parseGates(annotation).flatMap((gate) => {
    const problems: Array<string> = []
    if (!gatePattern.test(gate)) problems.push(`${path}: Invalid value: "${gate}": a gate must be a domain-prefixed name such as example.com/gate`)
    if (gate.length > 63) problems.push(`${path}: Invalid value: "${gate}": a gate must be no more than 63 characters`)
    return problems
  })

/** The reasons an update from `before` to `after` is refused: it may only remove gates. */
export const gateUpdateProblems = (path: string, before: string | undefined, after: string | undefined): ReadonlyArray<string> => {
  const kept = new Set(parseGates(before))
  const added = parseGates(after).filter((gate) => !kept.has(gate))
  return added.length === 0 ? [] : [`${path}: Forbidden: admission gates can only be removed after creation (added: ${added.join(", ")})`]
}
