import { Result, Schema } from "effect"

/** One piece of a search pattern: literal text, `*` (any run of characters) or `?` (exactly one character). */
export type SearchPiece = { readonly _tag: "Text"; readonly text: string } | { readonly _tag: "AnyRun" } | { readonly _tag: "AnyOne" }

/** One term of a search: a field it is restricted to (`field:value`), or none (every searchable field), and its
 * pattern. */
export interface SearchTerm {
  readonly field: string | undefined
  readonly pieces: ReadonlyArray<SearchPiece>
}

/** A `search` that is not Dioptra's query language, or names a field the list cannot be searched by. */
export class InvalidSearch extends Schema.TaggedError<InvalidSearch>()("InvalidSearch", {
  search: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `search ${JSON.stringify(this.search)} is refused: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

// The characters a backslash may escape, as in Dioptra's grammar; `\n` is a newline.
const escapable = new Set(["\\", "?", "*", '"', "'", "n", ":", ","])
const fieldName = /^[A-Za-z_]+$/

interface Cursor {
  readonly text: string
  at: number
}

const fail = (search: string, reason: string) => new InvalidSearch({ search, reason })

/** Appends literal text to a pattern, merging it with a preceding literal. */
const pushText = (pieces: Array<SearchPiece>, text: string): void => {
  const last = pieces[pieces.length - 1]
  if (last !== undefined && last._tag === "Text") pieces[pieces.length - 1] = { _tag: "Text", text: last.text + text }
  else pieces.push({ _tag: "Text", text })
}

/** Reads one escape (the cursor on its backslash) into `pieces`, or says why it is not one. */
const readEscape = (cursor: Cursor, pieces: Array<SearchPiece>): string | undefined => {
  const next = cursor.text[cursor.at + 1]
  if (next === undefined || !escapable.has(next)) {
    return `at character ${cursor.at + 1}: a backslash escapes only one of \\ ? * " ' n : , (write \\\\ for a backslash)`
  }
  pushText(pieces, next === "n" ? "\n" : next)
  cursor.at += 2
  return undefined
}

/** Reads a quoted string (the cursor on its opening quote) up to its closing quote. */
const readQuoted = (cursor: Cursor, pieces: Array<SearchPiece>): string | undefined => {
  const quote = cursor.text[cursor.at]
  const opened = cursor.at
  cursor.at += 1
  while (cursor.at < cursor.text.length) {
    const c = cursor.text[cursor.at] ?? ""
    if (c === quote) {
      cursor.at += 1
      return undefined
    }
    if (c === "\\") {
      const problem = readEscape(cursor, pieces)
      if (problem !== undefined) return problem
      continue
    }
    if (c === "*") pieces.push({ _tag: "AnyRun" })
    else if (c === "?") pieces.push({ _tag: "AnyOne" })
    else pushText(pieces, c)
    cursor.at += 1
  }
  return `at character ${opened + 1}: the quote ${quote} is never closed`
}

/** Reads one term's value up to the next unquoted comma. Spaces are allowed only in a value without a field. */
const readValue = (cursor: Cursor, fielded: boolean): Result.Result<ReadonlyArray<SearchPiece>, string> => {
  const pieces: Array<SearchPiece> = []
  while (cursor.at < cursor.text.length) {
    const c = cursor.text[cursor.at] ?? ""
    if (c === ",") break
    if (c === "\\") {
      const problem = readEscape(cursor, pieces)
      if (problem !== undefined) return Result.fail(problem)
    } else if (c === '"' || c === "'") {
      const problem = readQuoted(cursor, pieces)
      if (problem !== undefined) return Result.fail(problem)
    } else if (c === "*" || c === "?") {
      pieces.push({ _tag: c === "*" ? "AnyRun" : "AnyOne" })
      cursor.at += 1
    } else if (c === ":") {
      return Result.fail(`at character ${cursor.at + 1}: a colon follows a field name (letters and _); quote or escape (\\:) a colon in a value`)
    } else if (fielded && /\s/.test(c)) {
      return Result.fail(`at character ${cursor.at + 1}: a value after field: may not hold spaces unless quoted ("two words")`)
    } else {
      pushText(pieces, c)
      cursor.at += 1
    }
  }
  return Result.succeed(pieces)
}

/**
 * Parses Dioptra's search language: terms separated by commas, each `field:value` (that field only) or a bare
 * value (any searchable field, matched anywhere in it). In a value `*` is any run of characters and `?` one
 * character; `'...'` and `"..."` quote text with spaces, commas and colons (wildcards still apply inside);
 * a backslash escapes one of `\ ? * " ' n : ,`. Spaces around a term are not part of it. The empty search
 * is no terms.
 */
export const parseSearch = (search: string): Result.Result<ReadonlyArray<SearchTerm>, InvalidSearch> => {
  if (search.trim() === "") return Result.succeed([])
  const cursor: Cursor = { text: search, at: 0 }
  const terms: Array<SearchTerm> = []
  for (;;) {
    while (cursor.text[cursor.at] === " ") cursor.at += 1
    const rest = search.slice(cursor.at)
    const field = /^([A-Za-z_]+):/.exec(rest)?.[1]
    if (field !== undefined) cursor.at += field.length + 1
    const start = cursor.at
    const value = readValue(cursor, field !== undefined)
    if (Result.isFailure(value)) return Result.fail(fail(search, value.failure))
    const pieces = trimSpaces(value.success, field === undefined)
    // An empty quoted value (`name:""`) is a value: it matches the empty string.
    if (pieces.length === 0 && search.slice(start, cursor.at).trim() === "") return Result.fail(fail(search, `at character ${start + 1}: a term needs a value${field === undefined ? "" : ` after ${field}:`}`))
    terms.push({ field, pieces })
    if (cursor.at >= search.length) return Result.succeed(terms)
    cursor.at += 1 // the comma
  }
}

// Spaces typed around an unquoted bare value (`a, b`) separate terms, they are not searched for.
const trimSpaces = (pieces: ReadonlyArray<SearchPiece>, bare: boolean): ReadonlyArray<SearchPiece> => {
  if (!bare) return pieces
  const out = [...pieces]
  const first = out[0]
  if (first?._tag === "Text") out[0] = { _tag: "Text", text: first.text.replace(/^ +/, "") }
  const last = out[out.length - 1]
  if (last?._tag === "Text") out[out.length - 1] = { _tag: "Text", text: last.text.replace(/ +$/, "") }
  return out.filter((p) => p._tag !== "Text" || p.text !== "")
}

/** A search value matching exactly `text`: quoted, with every special character escaped. */
export const quoteSearch = (text: string): string => `"${text.replace(/[\\?*"'\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`))}"`

/** The pieces a term matches with: a bare term matches anywhere (any run before, between and after its pieces). */
export const matchPieces = (term: SearchTerm): ReadonlyArray<SearchPiece> => {
  if (term.field !== undefined) return term.pieces
  const anyRun: SearchPiece = { _tag: "AnyRun" }
  return [anyRun, ...term.pieces.flatMap((p) => [p, anyRun])]
}

const regexOf = (pieces: ReadonlyArray<SearchPiece>): RegExp =>
  new RegExp(
    `^${pieces.map((p) => (p._tag === "AnyRun" ? "[\\s\\S]*" : p._tag === "AnyOne" ? "[\\s\\S]" : p.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("")}$`,
    "u"
  )

/** True when `value` matches the term's pattern (case-sensitively, as SQL `LIKE`). */
export const termMatches = (term: SearchTerm, value: string): boolean => regexOf(matchPieces(term)).test(value)

/** The SQL `LIKE` pattern of a term, with `\` as its escape character (`like $1 escape '\'`). */
export const likePattern = (term: SearchTerm): string =>
  matchPieces(term)
    .map((p) => (p._tag === "AnyRun" ? "%" : p._tag === "AnyOne" ? "_" : p.text.replace(/[\\%_]/g, "\\$&")))
    .join("")

/** The terms whose field is not one of `fields`, refused with the fields a list can be searched by. */
export const checkSearchFields = (search: string, terms: ReadonlyArray<SearchTerm>, fields: ReadonlyArray<string>): Result.Result<ReadonlyArray<SearchTerm>, InvalidSearch> => {
  const unknown = [...new Set(terms.flatMap((t) => (t.field === undefined || fields.includes(t.field) ? [] : [t.field])))]
  return unknown.length === 0
    ? Result.succeed(terms)
    : Result.fail(fail(search, `${unknown.map((f) => JSON.stringify(f)).join(", ")} ${unknown.length === 1 ? "is not a field" : "are not fields"} this list can be searched by; fields: ${fields.join(", ")}`))
}

/** True when a record matches every term: a fielded term its field, a bare term any of the record's fields. */
export const searchMatches = (terms: ReadonlyArray<SearchTerm>, record: Readonly<Record<string, string>>): boolean =>
  terms.every((term) =>
    term.field === undefined ? Object.values(record).some((value) => termMatches(term, value)) : termMatches(term, record[term.field] ?? "")
  )

/** True when `name` can be a field in a search (`field:value`). */
export const isSearchField = (name: string): boolean => fieldName.test(name)
