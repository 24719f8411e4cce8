// JSON patch (RFC 6902): add, remove, replace, move, copy and test, applied in order; the first failing
// operation fails the whole patch and nothing is applied.
import { isJsonObject, jsonClone, jsonEqual, setOwn } from "../store/JsonValue.ts"
import { maxNestingDepth, nestingDepth } from "../validation/Nesting.ts"

/**
 * The most a patch may copy in all, as the API server's default (its request body limit): each copy
 * can double a document, so without a bound a short patch could fill the server's memory.
 */
export const maxCopyBytes = 3 * 1024 * 1024

/** Why a JSON patch could not be applied. */
export type JsonPatchError =
  | { readonly _tag: "MalformedPatch"; readonly message: string }
  | { readonly _tag: "OperationFailed"; readonly message: string }

/** The patched document, or why the patch failed. */
export type JsonPatchResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: JsonPatchError }

const malformed = (message: string): JsonPatchResult => ({ ok: false, error: { _tag: "MalformedPatch", message } })
const failed = (message: string): JsonPatchResult => ({ ok: false, error: { _tag: "OperationFailed", message } })

/** Splits a JSON pointer (RFC 6901) into its unescaped tokens; undefined when malformed. */
export const parsePointer = (pointer: string): ReadonlyArray<string> | undefined => {
  if (pointer === "") return []
  if (!pointer.startsWith("/")) return undefined
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))
}

// Marks a failed step apart from any document value.
class StepFailure {
  constructor(readonly error: JsonPatchResult) {}
}

type Container = Record<string, unknown> | Array<unknown>

const arrayIndex = (token: string, length: number, forInsert: boolean): number | undefined => {
  if (forInsert && token === "-") return length
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined
  const i = Number(token)
  return i < length || (forInsert && i === length) ? i : undefined
}

const parentOf = (doc: unknown, tokens: ReadonlyArray<string>): Container | undefined => {
  let node: unknown = doc
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) {
      const i = arrayIndex(token, node.length, false)
      if (i === undefined) return undefined
      node = node[i]
    } else if (isJsonObject(node) && Object.hasOwn(node, token)) node = node[token]
    else return undefined
  }
  return Array.isArray(node) || isJsonObject(node) ? node : undefined
}

const read = (doc: unknown, tokens: ReadonlyArray<string>): { found: true; value: unknown } | { found: false } => {
  if (tokens.length === 0) return { found: true, value: doc }
  const parent = parentOf(doc, tokens)
  const last = tokens[tokens.length - 1] ?? ""
  if (Array.isArray(parent)) {
    const i = arrayIndex(last, parent.length, false)
    return i === undefined ? { found: false } : { found: true, value: parent[i] }
  }
  if (parent !== undefined && Object.hasOwn(parent, last)) return { found: true, value: parent[last] }
  return { found: false }
}

// Each primitive returns the new document or a StepFailure; documents are mutated in place on a
// private copy, so a failure leaves the caller's value untouched.
const add = (doc: unknown, tokens: ReadonlyArray<string>, value: unknown): unknown => {
  // The rest of the document is within the limit already; only what lands at the path can deepen it.
  if (tokens.length + nestingDepth(value, maxNestingDepth) > maxNestingDepth) {
    return new StepFailure(failed(`add operation does not apply: the document would be nested more than ${maxNestingDepth} deep`))
  }
  if (tokens.length === 0) return value
  const parent = parentOf(doc, tokens)
  const last = tokens[tokens.length - 1] ?? ""
  if (Array.isArray(parent)) {
    const i = arrayIndex(last, parent.length, true)
    if (i === undefined) return new StepFailure(failed(`add operation does not apply: index ${last} out of range`))
    parent.splice(i, 0, value)
    return doc
  }
  if (parent === undefined) return new StepFailure(failed("add operation does not apply: doc is missing path"))
  setOwn(parent, last, value)
  return doc
}

const remove = (doc: unknown, tokens: ReadonlyArray<string>): unknown => {
  if (tokens.length === 0) return new StepFailure(failed("remove operation does not apply: cannot remove the whole document"))
  const parent = parentOf(doc, tokens)
  const last = tokens[tokens.length - 1] ?? ""
  if (Array.isArray(parent)) {
    const i = arrayIndex(last, parent.length, false)
    if (i === undefined) return new StepFailure(failed(`remove operation does not apply: index ${last} out of range`))
    parent.splice(i, 1)
    return doc
  }
  if (parent === undefined || !Object.hasOwn(parent, last)) return new StepFailure(failed("remove operation does not apply: doc is missing path"))
  delete parent[last]
  return doc
}

const pathOf = (op: Record<string, unknown>, key: "path" | "from"): ReadonlyArray<string> | string => {
  const raw = op[key]
  if (typeof raw !== "string") return `operation ${String(op["op"])} is missing ${key}`
  return parsePointer(raw) ?? `invalid JSON pointer ${JSON.stringify(raw)}`
}

// How many bytes the patch's copies have added so far.
interface CopyBudget {
  copied: number
}

const applyOne = (doc: unknown, op: Record<string, unknown>, budget: CopyBudget): unknown => {
  const path = pathOf(op, "path")
  if (typeof path === "string") return new StepFailure(malformed(path))
  switch (op["op"]) {
    case "add":
    case "replace":
    case "test": {
      if (!Object.hasOwn(op, "value")) return new StepFailure(malformed(`operation ${op["op"]} is missing value`))
      const value = jsonClone(op["value"])
      if (op["op"] === "add") return add(doc, path, value)
      const current = read(doc, path)
      if (!current.found) return new StepFailure(failed(`${op["op"]} operation does not apply: doc is missing path: ${String(op["path"])}`))
      if (op["op"] === "test") {
        return jsonEqual(current.value, value) ? doc : new StepFailure(failed(`testing value ${String(op["path"])} failed: test failed`))
      }
      const removed = remove(doc, path)
      return path.length === 0 ? value : removed instanceof StepFailure ? removed : add(removed, path, value)
    }
    case "remove":
      return remove(doc, path)
    case "move":
    case "copy": {
      const from = pathOf(op, "from")
      if (typeof from === "string") return new StepFailure(malformed(from))
      const source = read(doc, from)
      if (!source.found) return new StepFailure(failed(`${op["op"]} operation does not apply: doc is missing from path: ${String(op["from"])}`))
      if (op["op"] === "move") {
        const isPrefix = from.length < path.length && from.every((t, i) => path[i] === t)
        if (isPrefix) return new StepFailure(failed("move operation does not apply: from is a prefix of path"))
        const removed = remove(doc, from)
        return removed instanceof StepFailure ? removed : add(removed, path, source.value)
      }
      budget.copied += JSON.stringify(source.value).length
      if (budget.copied > maxCopyBytes) {
        return new StepFailure(
          failed(`Unable to complete the copy, the accumulated size increase of copy is ${budget.copied}, exceeding the limit ${maxCopyBytes}`)
        )
      }
      return add(doc, path, jsonClone(source.value))
    }
    default:
      return new StepFailure(malformed(`unexpected operation ${JSON.stringify(op["op"])}`))
  }
}

/** Applies an RFC 6902 patch document to a value, all operations or none. */
export const jsonPatch = (target: unknown, patch: unknown): JsonPatchResult => {
  if (!Array.isArray(patch)) return malformed("a JSON patch must be an array of operations")
  let doc: unknown = jsonClone(target)
  const budget: CopyBudget = { copied: 0 }
  for (const op of patch) {
    if (!isJsonObject(op)) return malformed("each JSON patch operation must be an object")
    const next = applyOne(doc, op, budget)
    if (next instanceof StepFailure) return next.error
    doc = next
  }
  return { ok: true, value: doc }
}
