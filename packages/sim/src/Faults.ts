// The fault plan: rules matched against each call by verb, resource, name and how many matching
// calls came before, deciding whether the call is refused, answered with a given Status, applied and
// never answered, or applied and answered late. Both faces consult the same plan through the core.
import type { Verb } from "./Api.ts"
import { SeededRandom } from "./Random.ts"

/** What a fault does to one call. */
export type FaultAction =
  /** Nothing applied; in-process the caller sees a refused connection, over HTTP (where the connection
   * is open before the call is known) the 503 `connect: connection refused` a proxy would send. */
  | { readonly type: "refuse" }
  /** Applied as usual; the answer never arrives. */
  | { readonly type: "drop" }
  /** Applied; answered after `ms` milliseconds. */
  | { readonly type: "delay"; readonly ms: number }
  /** Not applied; answered with a Status of that code. */
  | { readonly type: "status"; readonly code: number; readonly retryAfterSeconds?: number; readonly message?: string }

/** One rule of a fault plan: which calls it matches and what it does to them. */
export interface FaultRule {
  readonly verb?: Verb
  readonly resource?: string
  readonly name?: string
  /** 1-based: the nth call matching verb/resource/name. */
  readonly nth?: number
  /** How many matching calls from nth on (default 1 with nth, every call without). */
  readonly times?: number
  readonly action: FaultAction
}

/** The call a fault plan is asked about. */
export interface FaultCall {
  readonly verb: Verb
  readonly resource: string
  readonly name?: string | undefined
}

const matches = (rule: FaultRule, call: FaultCall): boolean =>
  (rule.verb === undefined || rule.verb === call.verb) &&
  (rule.resource === undefined || rule.resource === call.resource) &&
  (rule.name === undefined || rule.name === call.name)

const fires = (rule: FaultRule, count: number): boolean => {
  const from = rule.nth ?? 1
  const times = rule.times ?? (rule.nth === undefined ? Number.POSITIVE_INFINITY : 1)
  return count >= from && count < from + times
}

/** A fault plan in use: counts the calls each rule matches and says which action, if any, applies. */
export class FaultPlan {
  private readonly counts: Array<number>

  constructor(readonly rules: ReadonlyArray<FaultRule>) {
    this.counts = rules.map(() => 0)
  }

  /** Counts this call against every rule and returns the first firing rule's action. */
  decide(call: FaultCall): FaultAction | undefined {
    let chosen: FaultAction | undefined
    this.rules.forEach((rule, i) => {
      if (!matches(rule, call)) return
      const count = (this.counts[i] ?? 0) + 1
      this.counts[i] = count
      if (chosen === undefined && fires(rule, count)) chosen = rule.action
    })
    return chosen
  }
}

const allVerbs: ReadonlyArray<Verb> = ["create", "get", "list", "update", "patch", "delete"]
const statusCodes: ReadonlyArray<number> = [429, 500, 503, 504]
/** How many calls per verb a random plan covers. */
const horizon = 64

const randomAction = (random: SeededRandom): FaultAction => {
  const roll = random.int(4)
  if (roll === 0) return { type: "refuse" }
  if (roll === 1) return { type: "drop" }
  if (roll === 2) return { type: "delay", ms: 1 + random.int(2000) }
  const code = statusCodes[random.int(statusCodes.length)] ?? 500
  return code === 429 ? { type: "status", code, retryAfterSeconds: 1 + random.int(3) } : { type: "status", code }
}

/** A reproducible plan that faults about `rate` (default 0.1) of the first 64 calls of each verb. */
export const randomFaultPlan = (
  seed: number,
  options?: { rate?: number; verbs?: ReadonlyArray<Verb> }
): ReadonlyArray<FaultRule> => {
  const random = new SeededRandom(seed)
  const rate = options?.rate ?? 0.1
  const rules: Array<FaultRule> = []
  for (const verb of options?.verbs ?? allVerbs) {
    for (let nth = 1; nth <= horizon; nth++) {
      if (random.next() < rate) rules.push({ verb, nth, action: randomAction(random) })
    }
  }
  return rules
}
