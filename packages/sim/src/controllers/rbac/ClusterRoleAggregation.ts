// kube-controller-manager's ClusterRole aggregation controller: a ClusterRole with an aggregationRule
// gets as its rules those of every other ClusterRole any of its selectors matches (by name order, each
// rule once), written into its own rules as the controller writes them, so the RBAC authorizer reads
// them as any ClusterRole's.
import type { Controller, KubeObject, SystemClient } from "../../Api.ts"
import { jsonEqual } from "../../apiserver/store/JsonValue.ts"
import { labelSelectorOf, matchesLabels } from "../../apiserver/lists/LabelSelector.ts"

const metaOf = (o: KubeObject): Record<string, unknown> => (typeof o["metadata"] === "object" && o["metadata"] !== null ? (o["metadata"] as Record<string, unknown>) : {})
const nameOf = (o: KubeObject): string => String(metaOf(o)["name"] ?? "")
const labelsOf = (o: KubeObject): Readonly<Record<string, string>> => (metaOf(o)["labels"] ?? {}) as Readonly<Record<string, string>>

/** The rules an aggregated ClusterRole should hold given every ClusterRole (undefined: not aggregated, or a selector is invalid). */
export const aggregatedRules = (role: KubeObject, all: ReadonlyArray<KubeObject>): ReadonlyArray<unknown> | undefined => {
  const rule = role["aggregationRule"]
  if (typeof rule !== "object" || rule === null) return undefined
  const raw = (rule as Record<string, unknown>)["clusterRoleSelectors"]
  const selectors = (Array.isArray(raw) ? raw : []).map(labelSelectorOf)
  if (selectors.some((s) => s === undefined)) return undefined
  const rules: Array<unknown> = []
  const sources = all.filter((o) => nameOf(o) !== nameOf(role) && selectors.some((s) => s !== undefined && matchesLabels(s, labelsOf(o))))
  for (const source of [...sources].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0))) {
    for (const r of Array.isArray(source["rules"]) ? source["rules"] : []) if (!rules.some((have) => jsonEqual(have, r))) rules.push(r)
  }
  return rules
}

/** The aggregation controller. */
export const clusterRoleAggregation: Controller = {
  name: "clusterrole-aggregation",
  reconcile(system: SystemClient): void {
    const all = system.list("clusterroles")
    for (const role of all) {
      const rules = aggregatedRules(role, all)
      if (rules === undefined || jsonEqual(rules, role["rules"] ?? [])) continue
      system.update("clusterroles", { ...role, rules })
    }
  }
}
