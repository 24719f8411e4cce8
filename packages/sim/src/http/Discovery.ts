// The discovery documents kubectl reads before anything else: /version, /api, /apis and one
// APIResourceList per group/version, all derived from the served kinds.
import type { Resource } from "../Api.ts"
import { reviewGroupVersion, servedReviews } from "../apiserver/SelfReview.ts"
import type { KindRegistry } from "../kinds/KindRegistry.ts"
import { serves, servesRbac } from "./Route.ts"

/** The Kubernetes minor version the simulator claims; kubectl's dispatcher picks its binary by it. */
export const servedMinorVersion = 32

/** The /version body. */
export const versionInfo = (): Record<string, string> => ({
  major: "1",
  minor: String(servedMinorVersion),
  gitVersion: `v1.${servedMinorVersion}.0-dispatch-sim`,
  gitCommit: "",
  gitTreeState: "clean",
  buildDate: "2026-01-01T00:00:00Z",
  goVersion: "",
  compiler: "dispatch-sim",
  platform: "linux/amd64"
})

/** The /api body: the core group's versions. */
export const coreVersions = (serverAddress: string): Record<string, unknown> => ({
  kind: "APIVersions",
  versions: ["v1"],
  serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }]
})

/** The /apis body: every named group with its versions, the first listed preferred. */
export const groupList = (kinds: KindRegistry): Record<string, unknown> => {
  const groups = new Map<string, Array<string>>()
  const [reviewGroup = "", reviewVersion = ""] = reviewGroupVersion.split("/")
  for (const { group, version } of [...kinds.groupVersions, { group: reviewGroup, version: reviewVersion }]) {
    if (group === "") continue
    groups.set(group, [...(groups.get(group) ?? []), version])
  }
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [...groups].map(([name, versions]) => ({
      name,
      versions: versions.map((version) => ({ groupVersion: `${name}/${version}`, version })),
      preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] }
    }))
  }
}

/** The verbs every served resource supports on its main endpoint. */
export const resourceVerbs: ReadonlyArray<string> = ["create", "delete", "get", "list", "patch", "update", "watch"]

const resourceEntries = (r: Resource): ReadonlyArray<Record<string, unknown>> => [
  {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: resourceVerbs,
    ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
    // The upstream CRDs declare no categories, so none of them shows up in `kubectl get all`.
    categories: []
  },
  ...(r.hasStatus
    ? [{ name: `${r.plural}/status`, singularName: "", namespaced: r.namespaced, kind: r.kind, verbs: ["get", "patch", "update"] }]
    : [])
]

/** The APIResourceList of one group/version. */
export const resourceList = (kinds: KindRegistry, group: string, version: string): Record<string, unknown> => ({
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: group === "" ? version : `${group}/${version}`,
  resources: [
    ...kinds.servedIn(group, version).flatMap(resourceEntries),
    ...servedReviews(servesRbac(kinds))
      .filter((r) => serves(r, group, version))
      .map((r) => ({ name: r.plural, singularName: r.singular, namespaced: false, kind: r.kind, verbs: ["create"] }))
  ]
})
