// The kinds one simulator serves, looked up by plural, by kind and by group/version/plural, and the
// group/versions they make up. Each simulator holds its own, so two in one process may serve different
// kinds. Every write looks kinds up several times (its own, its owners'): maps, not scans. Where two
// kinds share a key the first registered wins, as a scan in registration order would find it.
import { groupOf } from "../apiserver/ResourceNames.ts"
import type { Kind } from "./Kind.ts"

/** A served group and version. */
export interface GroupVersion {
  readonly group: string
  readonly version: string
}

const servedKey = (group: string, version: string, plural: string): string => `${group}\u0000${version}\u0000${plural}`

const firstBy = (kinds: ReadonlyArray<Kind>, key: (kind: Kind) => string): ReadonlyMap<string, Kind> => {
  const map = new Map<string, Kind>()
  for (const k of kinds) if (!map.has(key(k))) map.set(key(k), k)
  return map
}

/** The served kinds, in registration order. */
export class KindRegistry {
  private readonly byPlural: ReadonlyMap<string, Kind>
  // A group holds no slash, so the last slash of a key tells its kind from its group.
  private readonly byKindAndGroup: ReadonlyMap<string, Kind>
  private readonly firstOfKind: ReadonlyMap<string, Kind>
  private readonly served = new Map<string, Kind>()
  private readonly servedGroupVersions = new Set<string>()
  private readonly messages = new Map<string, string>()
  /** The served group/version pairs, core first, in registration order. */
  readonly groupVersions: ReadonlyArray<GroupVersion>

  constructor(readonly kinds: ReadonlyArray<Kind>) {
    this.byPlural = firstBy(kinds, (k) => k.plural)
    this.byKindAndGroup = firstBy(kinds, (k) => `${k.kind}/${k.group}`)
    this.firstOfKind = firstBy(kinds, (k) => k.kind)
    const pairs: Array<GroupVersion> = []
    for (const k of kinds) {
      for (const version of k.versions) {
        const key = servedKey(k.group, version, k.plural)
        if (!this.served.has(key)) this.served.set(key, k)
        const pair = servedKey(k.group, version, "")
        if (!this.servedGroupVersions.has(pair)) pairs.push({ group: k.group, version })
        this.servedGroupVersions.add(pair)
      }
      for (const [name, text] of Object.entries(k.protobuf)) if (!this.messages.has(name)) this.messages.set(name, text)
    }
    this.groupVersions = [...pairs.filter((p) => p.group === ""), ...pairs.filter((p) => p.group !== "")]
  }

  /** The kind with that plural name. */
  byResource(plural: string): Kind | undefined {
    return this.byPlural.get(plural)
  }

  /** The kind an apiVersion and kind name, as owner references give them. */
  byKind(apiVersion: string, kind: string): Kind | undefined {
    return this.byKindAndGroup.get(`${kind}/${groupOf(apiVersion)}`)
  }

  /** The first kind of that name in any group (as a seed object names it). */
  byKindName(kind: string): Kind | undefined {
    return this.firstOfKind.get(kind)
  }

  /** The kind served at that group, version and plural. */
  servedAt(group: string, version: string, plural: string): Kind | undefined {
    return this.served.get(servedKey(group, version, plural))
  }

  /** True when some kind is served at that group and version. */
  servesGroupVersion(group: string, version: string): boolean {
    return this.servedGroupVersions.has(servedKey(group, version, ""))
  }

  /** The kinds served at that group and version, in registration order. */
  servedIn(group: string, version: string): ReadonlyArray<Kind> {
    return this.kinds.filter((k) => k.group === group && k.versions.includes(version))
  }

  /** The protobuf field table of a message some served kind embeds, by `<group>.<version>.<Kind>`. */
  protobufMessage(name: string): string | undefined {
    return this.messages.get(name)
  }
}
