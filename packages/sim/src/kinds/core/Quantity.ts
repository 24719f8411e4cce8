// Kubernetes resource quantities ("500m", "1.5Gi", "2e3", 4) read as plain numbers in base units
// (cores, bytes, devices), for adding up requests against quotas.
import { quantityPattern } from "../../apiserver/validation/FieldTree.ts"

const binary: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 }
const decimal: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 }

/** The quantity's value in base units, or undefined when it is not a quantity. */
export const parseQuantity = (value: unknown): number | undefined => {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined
  if (typeof value !== "string" || !quantityPattern.test(value)) return undefined
  const match = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$/.exec(value)
  const number = Number(match?.[1])
  const suffix = match?.[2] ?? ""
  const scale = binary[suffix] ?? decimal[suffix] ?? (/^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : undefined)
  return scale === undefined ? undefined : number * scale
}
