// The name formats Kubernetes checks: DNS-1123 subdomains and labels, RFC 1035 labels, qualified names
// (label, annotation and finalizer keys) and label values. Each check returns the problems found, as
// the API server words them, so callers can report all of them at once.

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

const tooLongMessage = (max: number): string => `must be no more than ${max} characters`

// What a check finds in a well-formed value, the usual case: one shared empty list.
const none: ReadonlyArray<string> = []

/** Problems with a DNS-1123 subdomain (most object names). */
export const checkDns1123Subdomain = (value: string): ReadonlyArray<string> =>
  value.length <= 253 && dns1123Subdomain.test(value) ? none : [
  ...(value.length > 253 ? [tooLongMessage(253)] : []),
  ...(dns1123Subdomain.test(value)
    ? []
    : [
        `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${dns1123SubdomainFmt}')`
      ])
]

/** Problems with a DNS-1123 label (namespace names, pod set names). */
export const checkDns1123Label = (value: string): ReadonlyArray<string> =>
  value.length <= 63 && dns1123Label.test(value) ? none : [
  ...(value.length > 63 ? [tooLongMessage(63)] : []),
  ...(dns1123Label.test(value)
    ? []
    : [
        `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${dns1123LabelFmt}')`
      ])
]

/** True for an RFC 1035 label of at most 63 characters (a TrainJob name). */
export const isRfc1035Label = (value: string): boolean => rfc1035Label.test(value) && value.length <= 63

// Label, annotation and finalizer keys repeat from object to object: each is checked once (the cache is
// bounded, so keys made up by the million cannot grow it without end).
const qualifiedNameProblems = new Map<string, ReadonlyArray<string>>()
const qualifiedNameCacheSize = 4096

/** Problems with a qualified name: an optional DNS subdomain prefix and `/`, then a name of <= 63. */
export const checkQualifiedName = (value: string): ReadonlyArray<string> => {
  const known = qualifiedNameProblems.get(value)
  if (known !== undefined) return known
  if (qualifiedNameProblems.size >= qualifiedNameCacheSize) qualifiedNameProblems.clear()
  const problems = qualifiedNameProblemsOf(value)
  qualifiedNameProblems.set(value, problems)
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
    else problems.push(...checkDns1123Subdomain(prefix).map((m) => `prefix part ${m}`))
  }
  if (name.length === 0) problems.push("name part must be non-empty")
  else {
    if (name.length > 63) problems.push(`name part ${tooLongMessage(63)}`)
    if (!qualifiedNamePart.test(name)) {
      problems.push(
        `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualifiedNameFmt}')`
      )
    }
  }
  return problems
}

/** Problems with a label value: <= 63 characters, alphanumeric ends, `-_.` inside. */
export const checkLabelValue = (value: string): ReadonlyArray<string> =>
  value.length <= 63 && labelValuePattern.test(value) ? none : [
  ...(value.length > 63 ? [tooLongMessage(63)] : []),
  ...(labelValuePattern.test(value)
    ? []
    : [
        `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${labelValueFmt}')`
      ])
]
