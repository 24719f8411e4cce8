// Kubernetes' name formats, as apimachinery's validation (k8s.io/apimachinery/pkg/util/validation) applies
// them to each field: DNS-1123 subdomains (most object names, label-key prefixes), DNS-1123 labels
// (namespaces, pod set names), RFC 1035 labels (names that become a Service's or a pod's host name),
// qualified names (label, annotation and finalizer keys) and label values. Each check returns every
// problem in the API server's words, so a caller can report all of them at once; the `is` forms say
// only whether there is none. A subdomain's 253 is its only length limit: its dot-separated parts are
// not held to 63 each, as in the API server.

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`
const rfc1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?"
const qualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
const labelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"

const full = (fmt: string): RegExp => new RegExp(`^${fmt}$`)
const dns1123Label = full(dns1123LabelFmt)
const dns1123Subdomain = full(dns1123SubdomainFmt)
const rfc1035Label = full(rfc1035LabelFmt)
const qualifiedNamePart = full(qualifiedNameFmt)
const labelValuePattern = full(labelValueFmt)

/** The longest DNS-1123 label, RFC 1035 label, qualified name's name part or label value. */
export const MAX_LABEL_LENGTH = 63

/** The longest DNS-1123 subdomain. */
export const MAX_SUBDOMAIN_LENGTH = 253

/** The most bytes all annotations of one object may take together (256 KiB). */
export const MAX_ANNOTATIONS_BYTES = 262_144

const tooLongMessage = (max: number): string => `must be no more than ${max} characters`

// What a check finds in a well-formed value, the usual case: one shared empty list.
const none: ReadonlyArray<string> = []

// Both are checked, as the API server does, so a value that is too long and malformed gets both messages.
const check = (value: string, max: number, pattern: RegExp, patternMessage: string): ReadonlyArray<string> =>
  value.length <= max && pattern.test(value)
    ? none
    : [...(value.length > max ? [tooLongMessage(max)] : []), ...(pattern.test(value) ? [] : [patternMessage])]

/** Problems with a DNS-1123 subdomain (most object names), in the API server's words. */
export const dns1123SubdomainProblems = (value: string): ReadonlyArray<string> =>
  check(
    value,
    MAX_SUBDOMAIN_LENGTH,
    dns1123Subdomain,
    `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${dns1123SubdomainFmt}')`
  )

/** Problems with a DNS-1123 label (namespace names, pod set names), in the API server's words. */
export const dns1123LabelProblems = (value: string): ReadonlyArray<string> =>
  check(
    value,
    MAX_LABEL_LENGTH,
    dns1123Label,
    `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${dns1123LabelFmt}')`
  )

/** Problems with an RFC 1035 label (a DNS-1123 label that starts with a letter), in the API server's words. */
export const rfc1035LabelProblems = (value: string): ReadonlyArray<string> =>
  check(
    value,
    MAX_LABEL_LENGTH,
    rfc1035Label,
    `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${rfc1035LabelFmt}')`
  )

/** Problems with a label value: empty, or at most 63 alphanumerics, '-', '_' and '.', with alphanumeric ends. */
export const labelValueProblems = (value: string): ReadonlyArray<string> =>
  check(
    value,
    MAX_LABEL_LENGTH,
    labelValuePattern,
    `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${labelValueFmt}')`
  )

// Label, annotation and finalizer keys repeat from object to object: each is checked once. A pure memo
// of constant input, bounded so keys made up by the million cannot grow it without end.
const qualifiedNameMemo = new Map<string, ReadonlyArray<string>>()
const qualifiedNameMemoSize = 4096

/** Problems with a qualified name (a label, annotation or finalizer key): an optional DNS-1123 subdomain prefix and '/', then a name of at most 63. */
export const qualifiedNameProblems = (value: string): ReadonlyArray<string> => {
  const known = qualifiedNameMemo.get(value)
  if (known !== undefined) return known
  if (qualifiedNameMemo.size >= qualifiedNameMemoSize) qualifiedNameMemo.clear()
  const problems = qualifiedNameProblemsOf(value)
  qualifiedNameMemo.set(value, problems)
  return problems
}

const qualifiedNameProblemsOf = (value: string): ReadonlyArray<string> => {
  const parts = value.split("/")
  if (parts.length > 2) {
    return [`a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualifiedNameFmt}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]
  }
  const [first = "", second] = parts
  const name = second ?? first
  const prefix = second === undefined ? undefined : first
  const problems: Array<string> = []
  if (prefix !== undefined) {
    if (prefix.length === 0) problems.push("prefix part must be non-empty")
    else problems.push(...dns1123SubdomainProblems(prefix).map((m) => `prefix part ${m}`))
  }
  if (name.length === 0) problems.push("name part must be non-empty")
  else {
    if (name.length > MAX_LABEL_LENGTH) problems.push(`name part ${tooLongMessage(MAX_LABEL_LENGTH)}`)
    if (!qualifiedNamePart.test(name)) {
      problems.push(
        `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualifiedNameFmt}')`
      )
    }
  }
  return problems
}

/** Whether a value is a DNS-1123 subdomain of at most 253 characters. */
export const isDns1123Subdomain = (value: string): boolean => dns1123SubdomainProblems(value).length === 0

/** Whether a value is a DNS-1123 label of at most 63 characters. */
export const isDns1123Label = (value: string): boolean => dns1123LabelProblems(value).length === 0

/** Whether a value is an RFC 1035 label of at most 63 characters. */
export const isRfc1035Label = (value: string): boolean => rfc1035LabelProblems(value).length === 0

/** Whether a value is a qualified name (a label, annotation or finalizer key). */
export const isQualifiedName = (value: string): boolean => qualifiedNameProblems(value).length === 0

/** Whether a value is a label value. */
export const isLabelValue = (value: string): boolean => labelValueProblems(value).length === 0

/** The UTF-8 size of a string, as the API server counts annotation bytes. */
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

/** The bytes a map of annotations takes, keys and values in UTF-8, as the API server counts them against MAX_ANNOTATIONS_BYTES. */
export const annotationsSize = (annotations: Readonly<Record<string, unknown>>): number => {
  let bytes = 0
  for (const key of Object.keys(annotations)) {
    const value = annotations[key]
    bytes += utf8Length(key) + (typeof value === "string" ? utf8Length(value) : 0)
  }
  return bytes
}

/** Every problem with a label map, each naming its key or value. */
export const labelsProblems = (labels: Readonly<Record<string, string>>): ReadonlyArray<string> =>
  Object.entries(labels).flatMap(([key, value]) => [
    ...qualifiedNameProblems(key).map((p) => `label key ${JSON.stringify(key)}: ${p}`),
    ...labelValueProblems(value).map((p) => `label ${JSON.stringify(key)} value ${JSON.stringify(value)}: ${p}`)
  ])

/** Every problem with an annotation map: bad keys, and a total size over MAX_ANNOTATIONS_BYTES. */
export const annotationsProblems = (annotations: Readonly<Record<string, string>>): ReadonlyArray<string> => {
  const bytes = annotationsSize(annotations)
  return [
    ...Object.keys(annotations).flatMap((key) => qualifiedNameProblems(key).map((p) => `annotation key ${JSON.stringify(key)}: ${p}`)),
    ...(bytes > MAX_ANNOTATIONS_BYTES ? [`annotations take ${bytes} bytes, more than ${MAX_ANNOTATIONS_BYTES}`] : [])
  ]
}
