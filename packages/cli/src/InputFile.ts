// Input files (requests, configs) as the user writes them: YAML or JSON (JSON is YAML), exactly one
// document, every problem naming the file and where in it.
import { parseAllDocuments } from "yaml"

/** An input file read as one value, or every reason it could not be. */
export type InputDocument = { readonly value: unknown } | { readonly problems: ReadonlyArray<string> }

/** Reads the text of the input file `file` as one YAML or JSON document. */
export const parseInputDocument = (file: string, text: string): InputDocument => {
  const parsed = parseAllDocuments(text)
  const documents = Array.isArray(parsed) ? parsed : [parsed]
  const problems = documents.flatMap((doc) =>
    // yaml's first line already says where: "... at line 1, column 7:".
    doc.errors.map((e) => `${file}: not valid YAML or JSON: ${(e.message.split("\n")[0] ?? "").replace(/:$/, "")}`)
  )
  if (problems.length > 0) return { problems }
  let values: Array<unknown>
  try {
    values = documents.map((doc) => doc.toJS() as unknown).filter((value) => value !== null && value !== undefined)
  } catch (error) {
    // toJS refuses documents that expand aliases without bound (a "billion laughs" file).
    return { problems: [`${file}: cannot be read: ${error instanceof Error ? error.message : String(error)}`] }
  }
  if (values.length === 0) return { problems: [`${file}: is empty`] }
  if (values.length > 1) return { problems: [`${file}: holds ${values.length} documents, expected one`] }
  return { value: values[0] }
}
