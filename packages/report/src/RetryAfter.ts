// Reading an HTTP Retry-After header (RFC 9110 section 10.2.3): a number of seconds, or an HTTP date, in any of the
// three forms a recipient must accept (IMF-fixdate, RFC 850's, asctime's). Anything else is no advice.

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const day = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
const longDay = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
const month = `(${months.join("|")})`
const time = "(\\d\\d):(\\d\\d):(\\d\\d)"
const imfFixdate = new RegExp(`^${day}, (\\d\\d) ${month} (\\d{4}) ${time} GMT$`)
const rfc850 = new RegExp(`^${longDay}, (\\d\\d)-${month}-(\\d\\d) ${time} GMT$`)
const asctime = new RegExp(`^${day} ${month} ([ \\d]\\d) ${time} (\\d{4})$`)

const utc = (year: number, monthName: string, date: number, hours: number, minutes: number, seconds: number): number | undefined => {
  const index = months.indexOf(monthName)
  // A leap second (60) is read as the second before it.
  if (minutes > 59 || seconds > 60) return undefined
  const at = Date.UTC(year, index, date, hours, minutes, Math.min(seconds, 59))
  // A day past its month's end (31 Feb, 00, 32) or an hour past 23 moves the date: no such time.
  return new Date(at).getUTCDate() === date ? at : undefined
}

/** The time an HTTP date names, in milliseconds since the epoch, or undefined when `text` is not one. */
export const httpDateMs = (text: string): number | undefined => {
  const fixed = imfFixdate.exec(text)
  if (fixed !== null) return utc(Number(fixed[3]), fixed[2] ?? "", Number(fixed[1]), Number(fixed[4]), Number(fixed[5]), Number(fixed[6]))
  const old = rfc850.exec(text)
  if (old !== null) {
    // A two-digit year more than 50 years ahead is in the past century (RFC 9110 section 5.6.7).
    const short = Number(old[3])
    const thisYear = new Date().getUTCFullYear()
    let year = Math.floor(thisYear / 100) * 100 + short
    if (year > thisYear + 50) year -= 100
    return utc(year, old[2] ?? "", Number(old[1]), Number(old[4]), Number(old[5]), Number(old[6]))
  }
  const c = asctime.exec(text)
  if (c !== null) return utc(Number(c[6]), c[1] ?? "", Number(c[2]), Number(c[3]), Number(c[4]), Number(c[5]))
  return undefined
}

/** How long a Retry-After header asks to wait, in milliseconds from `nowMs` (0 for a date past), or undefined when
 * there is no header or it is neither a number of seconds nor an HTTP date. */
export const retryAfterMs = (header: string | undefined, nowMs: number): number | undefined => {
  if (header === undefined) return undefined
  const text = header.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = httpDateMs(text)
  return at === undefined ? undefined : Math.max(0, at - nowMs)
}
