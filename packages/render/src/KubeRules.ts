// Kubernetes' naming rules (apimachinery's validation), checked on everything render emits. Lengths are
// tested before patterns so a 1 MB string costs nothing.

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const RFC1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/

/** The most bytes all annotations of one object may take together. */
export const MAX_ANNOTATIONS_BYTES = 262_144

/** A DNS-1123 label: lowercase alphanumerics and '-', at most 63. */
export const isDnsLabel = (s: string): boolean => s.length <= 63 && DNS_LABEL.test(s)

/** An RFC 1035 label: a DNS-1123 label that starts with a letter. */
export const isRfc1035Label = (s: string): boolean => s.length <= 63 && RFC1035_LABEL.test(s)

/** A DNS-1123 subdomain: dot-separated labels, at most 253. */
export const isDnsSubdomain = (s: string): boolean =>
  s.length <= 253 && DNS_SUBDOMAIN.test(s) && s.split(".").every((label) => label.length <= 63)

/** A label or annotation key: an optional DNS subdomain prefix and '/', then a name of at most 63. */
export const isQualifiedName = (key: string): boolean => {
  if (key.length > 253 + 1 + 63) return false
  const slash = key.indexOf("/")
  const prefix = slash === -1 ? undefined : key.slice(0, slash)
  // Without a slash, -1 + 1 takes the whole key.
  const name = key.slice(slash + 1)
  if (prefix !== undefined && !isDnsSubdomain(prefix)) return false
  // The pattern needs at least one character.
  return name.length <= 63 && QUALIFIED_NAME_PART.test(name)
}

/** A label value: empty, or at most 63 alphanumerics, '-', '_' and '.', starting and ending alphanumeric. */
export const isLabelValue = (value: string): boolean => value.length <= 63 && LABEL_VALUE.test(value)

/** Every way a label map breaks the rules, naming the key. */
export const labelProblems = (labels: Readonly<Record<string, string>>): Array<string> => {
  const problems: Array<string> = []
  for (const [key, value] of Object.entries(labels)) {
    if (!isQualifiedName(key)) problems.push(`label key ${JSON.stringify(key)} is not a qualified name`)
    if (!isLabelValue(value)) problems.push(`label ${JSON.stringify(key)} has an invalid value ${JSON.stringify(value)}`)
  }
  return problems
}

/** The UTF-8 size of a string, as the API server counts it. */
export const utf8Length = (s: string): number => {
  let bytes = 0
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    // Past the end charCodeAt is NaN, and NaN & 0xfc00 is 0: a high surrogate at the end stays alone.
    else if (unit >= 0xd800 && unit <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/** Every way an annotation map breaks the rules: bad keys, and a total size over 256 KiB. */
export const annotationProblems = (annotations: Readonly<Record<string, string>>): Array<string> => {
  const problems: Array<string> = []
  let bytes = 0
  for (const [key, value] of Object.entries(annotations)) {
    if (!isQualifiedName(key)) problems.push(`annotation key ${JSON.stringify(key)} is not a qualified name`)
    bytes += utf8Length(key) + utf8Length(value)
  }
  if (bytes > MAX_ANNOTATIONS_BYTES) problems.push(`annotations take ${bytes} bytes, more than ${MAX_ANNOTATIONS_BYTES}`)
  return problems
}
