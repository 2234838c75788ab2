// The one rule every ingest path applies to datapoint identifiers before anything is created
// (issue 9, item 9): an identifier holding a control character (C0 U+0000-U+001F, DEL U+007F
// or C1 U+0080-U+009F; NUL above all) or a lone UTF-16 surrogate (issue 29) is refused. Such
// identifiers cannot be typed, print invisibly or cut log lines and C strings short, so a
// stored one can hide or mimic another.
// The paths report the refusal their own way: JSON ingest and the catalog with a 400, the CSV
// import as a line error, MQTT lines and META messages are dropped and counted.

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/** The first control character of the identifier as `U+XXXX`, or undefined when it has none. */
export function controlCharacterIn(id: string): string | undefined {
  const m = CONTROL.exec(id)
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : undefined
}

/** A UTF-16 surrogate without its pair: no UTF-8 text can hold it (MQTT refuses such bytes, a CSV file cannot carry it). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Why the identifier is refused, or undefined when it is acceptable. */
export function identifierProblem(id: string): string | undefined {
  const c = controlCharacterIn(id)
  if (c) return `the datapoint identifier ${quoteIdentifier(id)} contains the control character ${c}`
  // Only a JSON escape (\ud800) can bring one in; stored, it would be no valid UTF-8 name.
  if (LONE_SURROGATE.test(id)) return `the datapoint identifier ${quoteIdentifier(id)} contains a lone UTF-16 surrogate (not valid Unicode text)`
  return undefined
}

/** The identifier for a message: JSON-quoted, so control characters show as escapes; long ones cut. */
export function quoteIdentifier(id: string): string {
  const long = id.length > 200
  const text = JSON.stringify(long ? id.slice(0, 200) : id).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return long ? `${text.slice(0, -1)}..."` : text
}
