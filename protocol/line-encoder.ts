// The writing side of the time-series line format (spec 3; the reader is line-protocol.ts):
// one line `<datapoint> value=<float> <timestamp>` that parseLines reads back as the same
// identifier, value and time. Used by the edge agent to publish present values.
//
// - Identifier: written as is unless it holds a blank, a comma, a quote or a backslash; then
//   quoted, with `"` and `\` escaped (inside quotes blanks and commas need no escape). An
//   identifier the reader refuses (empty, longer than MAX_ID_LENGTH, a control character,
//   which would also let a line break start a second line) is refused here: RangeError.
// - Value: encodeDecimal (decimal.ts): the shortest round-trip text, `-0` kept; NaN and
//   ±Infinity are refused (RangeError).
// - Time: integer µs since the epoch, written as nanoseconds (19 digits today). The reader
//   tells the unit by the number of digits, which reads every unit back to 1973-03-03 only;
//   before that a whole second is written in seconds, anything finer is refused (RangeError).
import { controlCharacterIn } from '../core/identifier.ts'
import { encodeDecimal } from './decimal.ts'
import { MAX_ID_LENGTH } from './line-protocol.ts'

/** The first time written in nanoseconds (1e17 ns: 18 digits, the reader's nanosecond range). */
const NS_FROM_US = 100_000_000_000_000

/** One line (no line break) of `id`, `value` and `timeUs` (integer µs since the epoch). */
export function encodeLine(id: string, value: number, timeUs: number): string {
  return `${encodeIdentifier(id)} value=${encodeDecimal(value)} ${encodeTime(timeUs)}`
}

/** The identifier as the line format writes it (see header). */
export function encodeIdentifier(id: string): string {
  if (id.length === 0) throw new RangeError('empty datapoint identifier')
  if (id.length > MAX_ID_LENGTH) throw new RangeError(`datapoint identifier longer than ${MAX_ID_LENGTH} characters`)
  const control = controlCharacterIn(id)
  if (control !== undefined) throw new RangeError(`datapoint identifier contains the control character ${control}`)
  return /[ ,"\\]/.test(id) ? `"${id.replace(/["\\]/g, '\\$&')}"` : id
}

/** The timestamp digits of `timeUs` (see header). */
export function encodeTime(timeUs: number): string {
  if (!Number.isSafeInteger(timeUs) || timeUs < 0) throw new RangeError(`time is not a non-negative integer of µs: ${timeUs}`)
  if (timeUs >= NS_FROM_US) return `${timeUs}000`
  if (timeUs % 1_000_000 === 0) return String(timeUs / 1_000_000)
  throw new RangeError(`time ${timeUs} µs is before 1973-03-03 and not a whole second: the line format cannot carry it`)
}
