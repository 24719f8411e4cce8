// Kueue's admission gates: the `kueue.x-k8s.io/admission-gated-by` annotation lists domain-prefixed gate
// names separated by commas. It may be set only at creation; afterwards gates can only be removed.

import { isQualifiedName, MAX_ADMISSION_GATE_LENGTH, parseAdmissionGates } from "@dispatch/kube"

// A domain-prefixed name: a qualified name whose DNS-subdomain prefix is not optional.
const isDomainPrefixedName = (gate: string): boolean => gate.includes("/") && isQualifiedName(gate)


/** Every reason an annotation value is not a valid list of gates. */
export const gateProblems = (path: string, annotation: string | undefined): ReadonlyArray<string> =>
  parseAdmissionGates(annotation).flatMap((gate) => {
    const problems: Array<string> = []
    if (!isDomainPrefixedName(gate)) problems.push(`${path}: Invalid value: "${gate}": a gate must be a domain-prefixed name such as example.com/gate`)
    if (gate.length > MAX_ADMISSION_GATE_LENGTH) problems.push(`${path}: Invalid value: "${gate}": a gate must be no more than ${MAX_ADMISSION_GATE_LENGTH} characters`)
    return problems
  })

/** The reasons an update from `before` to `after` is refused: it may only remove gates. */
export const gateUpdateProblems = (path: string, before: string | undefined, after: string | undefined): ReadonlyArray<string> => {
  const kept = new Set(parseAdmissionGates(before))
  const added = parseAdmissionGates(after).filter((gate) => !kept.has(gate))
  return added.length === 0 ? [] : [`${path}: Forbidden: admission gates can only be removed after creation (added: ${added.join(", ")})`]
}
