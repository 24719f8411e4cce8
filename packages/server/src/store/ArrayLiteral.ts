// PostgreSQL array literals, as `array_in` reads them, for a statement that inserts many rows as one array per column
// (`unnest($1::int[], $2::text[], ...)`). Both drivers would write a JavaScript array as such a literal themselves,
// but node-postgres quotes every number and runs two regular-expression replacements on every element, and a report
// batch has thousands: written here a batch's columns cost half. Either driver passes a string through as the
// parameter's text.

/** The array literal of finite numbers (`{1,2.5,-3e-7}`), each written as JavaScript writes it, which PostgreSQL's
 * integer and float8 inputs read back exactly. */
export const numberArrayLiteral = (values: ReadonlyArray<number>): string => `{${values.join(",")}}`

const quoted = /["\\]/
const quotedEvery = /["\\]/g

/** The array literal of texts and NULLs (`{"a","b \"c\"",NULL}`): each text quoted, its quotes and backslashes
 * escaped, so a comma, a brace, white space or the word NULL inside one is read as text. */
export const textArrayLiteral = (values: ReadonlyArray<string | null>): string =>
  `{${values.map((value) => (value === null ? "NULL" : quoted.test(value) ? `"${value.replace(quotedEvery, "\\$&")}"` : `"${value}"`)).join(",")}}`
