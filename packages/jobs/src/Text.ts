// PostgreSQL text cannot hold NUL, and JSON text with an unpaired surrogate is refused (jsonb) or silently
// replaced by U+FFFD (text), so such strings are refused here, before any store sees them.
import { Schema } from "effect"

/** The longest string of each kind the service accepts, in characters (UTF-16 code units). */
export const textLimits = {
  /** Names of experiments, entrypoints, queues, parameters, metrics and loggers; artifact types; swap names and task aliases. */
  name: 255,
  /** Descriptions, parameter values, log messages, task graph strings: the same 64 KiB as the field limit. */
  text: 65_536
} as const

const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Why a string cannot be stored as text: it holds NUL or an unpaired surrogate (at the index given); undefined when it can. */
export const textFlaw = (text: string): string | undefined => {
  const nul = text.indexOf("\u0000")
  if (nul >= 0) return `contains NUL (U+0000) at character ${nul}`
  const lone = unpairedSurrogate.exec(text)
  return lone === null ? undefined : `contains an unpaired surrogate (U+${text.charCodeAt(lone.index).toString(16).toUpperCase()}) at character ${lone.index}`
}

// NUL or any surrogate half, paired or not: a string without one is storable.
const suspectUnit = /[\u0000\uD800-\uDFFF]/

/** True when a string can be stored as text, as `textFlaw(text) === undefined` says, but cheaply: only a string that
 * holds NUL or a surrogate is read again for its flaw. Most strings of a request are short names and keys, whose
 * units are read one by one, quicker than a call into the regular expression engine. */
export const isStorableText = (text: string): boolean => {
  if (text.length > 32) return !suspectUnit.test(text) || textFlaw(text) === undefined
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit === 0 || (unit & 0xf800) === 0xd800) return textFlaw(text) === undefined
  }
  return true
}

/** A string of a request that cannot be stored as text: where it is, and why. */
export class MalformedText extends Schema.TaggedError<MalformedText>()("MalformedText", {
  field: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.field}: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

const at = (path: string, key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`)

/** Every string of a JSON value, object keys included, that cannot be stored as text, each named by its path. */
export const malformedTexts = (value: unknown, root = ""): ReadonlyArray<MalformedText> => {
  const found: Array<MalformedText> = []
  // An explicit stack, so a body nested thousands deep is walked without recursion; a flawed key waits on it
  // as its own entry, so problems come out in the order of the document.
  const stack: Array<{ readonly value: unknown; readonly path: string; readonly key?: boolean }> = [{ value, path: root }]
  while (stack.length > 0) {
    const { value: item, path, key } = stack.pop()!
    if (typeof item === "string") {
      const flaw = textFlaw(item)
      if (flaw !== undefined) found.push(new MalformedText({ field: key === true ? `${path === "" ? "" : `${path}.`}(a key)` : path === "" ? "(the body)" : path, reason: flaw }))
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], path: at(path, i) })
    } else if (typeof item === "object" && item !== null) {
      const entries = Object.entries(item)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, inner] = entries[i]!
        if (textFlaw(name) === undefined) stack.push({ value: inner, path: at(path, name) })
        else stack.push({ value: name, path, key: true })
      }
    }
  }
  return found
}

const storable = Schema.makeFilter((text: string) => textFlaw(text))

/** A string of at most `max` characters, free of NUL and unpaired surrogates. */
export const Text = (max: number) => Schema.String.check(storable, Schema.isMaxLength(max))

/** A name: 1 to 255 characters, storable as text. */
export const Name = Text(textLimits.name).check(Schema.isMinLength(1))

/** A description or other free text: at most 64 Ki characters, storable as text. */
export const Description = Text(textLimits.text)
