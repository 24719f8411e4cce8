// What one served kind tells the API server about itself, as kube-apiserver's per-kind registry
// (pkg/registry/<group>/<kind>) does: where it lives in the API, its schema, its strategy (defaults
// filled in on create and update, what create sets itself, the rules beyond the schema, the name rule),
// the fields it can be selected by, its Table columns and its `kubectl explain` text. The API server's
// machinery (apiserver/, http/) reads kinds only through this shape and the registry, never a concrete kind.
import type { KubeObject, Resource } from "../Api.ts"
import type { FieldError } from "../apiserver/validation/FieldErrors.ts"
import type { FieldTree } from "../apiserver/validation/FieldTree.ts"
import { dns1123SubdomainProblems, valueAt } from "@dispatch/kube"
import { type Column, ageColumn, nameColumn } from "./Columns.ts"

/** What a create may draw on to allocate something of its own (a Service's cluster IP and node ports). */
export interface Allocator {
  /** A seeded random integer in [0, bound). */
  readonly int: (bound: number) => number
  /** The stored objects of a resource, by plural (to tell what is taken). */
  readonly stored: (plural: string) => Iterable<KubeObject>
}

/** The rules a kind's writes go through, besides the metadata rules every object has. */
export interface KindStrategy {
  /** The object with the server's defaults filled in (on create and on update of the main resource). */
  readonly defaults: (object: Record<string, unknown>) => Record<string, unknown>
  /** What the server sets itself on create, after defaulting (by default: any status sent is dropped when there is a status subresource). */
  readonly prepareForCreate?: (object: KubeObject, allocator: Allocator) => KubeObject
  /** Every problem beyond the schema's types with an object about to be stored (`old` on update). */
  readonly validate: (object: Record<string, unknown>, old: Record<string, unknown> | undefined) => ReadonlyArray<FieldError>
  /** Why a name cannot be this kind's object's (a DNS-1123 subdomain unless the kind says otherwise). */
  readonly nameProblems: (name: string) => ReadonlyArray<string>
}

/** One served kind: its resource (names, versions, scope, status subresource) and everything the server does with it. */
export interface Kind extends Resource {
  /** The schema: pruning and type checks on writes, and the OpenAPI schema `kubectl explain` reads ("open" keeps everything). */
  readonly fields: FieldTree
  /** What the main fields mean, in a sentence, by path in `fields` (list items add no segment), for `kubectl explain`. */
  readonly descriptions: Readonly<Record<string, string>>
  readonly strategy: KindStrategy
  /** The fields a field selector may name besides metadata.name and metadata.namespace, each with how it is read (a string; "" when absent). */
  readonly selectableFields: Readonly<Record<string, (object: unknown) => string>>
  /** The Table columns `kubectl get` prints. */
  readonly columns: ReadonlyArray<Column>
  /**
   * The protobuf wire shape of the kind and every message it embeds besides meta/v1's (built-in kinds
   * only: kubectl sends custom resources as JSON), by `<group>.<version>.<Kind>`, in the entry syntax
   * http/ApiMessages.ts describes.
   */
  readonly protobuf: Readonly<Record<string, string>>
  /** The protobuf message of the kind itself, when it has one. */
  readonly protobufMessage?: string
}

/** What a kind's folder declares: its resource and whatever of the rest differs from a plain custom resource's. */
export type KindDefinition = Resource & Partial<Omit<Kind, keyof Resource | "strategy">> & { readonly strategy?: Partial<KindStrategy> }

/** A kind, with a plain custom resource's behaviour wherever its definition says nothing. */
export const defineKind = (definition: KindDefinition): Kind => ({
  ...definition,
  fields: definition.fields ?? "open",
  descriptions: definition.descriptions ?? {},
  strategy: {
    defaults: definition.strategy?.defaults ?? ((object) => object),
    validate: definition.strategy?.validate ?? (() => []),
    nameProblems: definition.strategy?.nameProblems ?? dns1123SubdomainProblems,
    ...(definition.strategy?.prepareForCreate === undefined ? {} : { prepareForCreate: definition.strategy.prepareForCreate })
  },
  selectableFields: definition.selectableFields ?? {},
  columns: definition.columns ?? [nameColumn, ageColumn],
  protobuf: definition.protobuf ?? {}
})

/** True for a kind compiled into the API server (it has a protobuf message), false for a custom resource. */
export const isBuiltIn = (kind: Kind): boolean => kind.protobufMessage !== undefined

/** A selectable field read at its own path (what most are). */
export const fieldAt =
  (path: string) =>
  (object: unknown): string => {
    // A numeric step reads a list's item, as a plain JavaScript property read of "1" would.
    const value = valueAt(object, path.split(".").map((key) => (/^\d+$/.test(key) ? Number(key) : key)))
    return value === undefined || value === null ? "" : String(value)
  }
