// Validation of the JSON ingest body of POST /v2/project/{project_id}/timeseries (spec 1):
// an object keyed by datapoint identifier, each value an array of {time, value}. Every
// observation is checked before anything is stored (all-or-nothing per request).
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { InvalidInputError } from '../core/errors.ts'
import { identifierProblem, quoteIdentifier } from '../core/identifier.ts'
import { parseTimestamp } from '../core/timestamp.ts'

export interface IdentifiedObservation { id: string; time: number; value: number }

export const MAX_IDENTIFIER_LENGTH = 1000

/** A body already read and checked while it was parsed (json-text.ts): its rows, in body order. */
export class CheckedObservations {
  constructor (readonly rows: IdentifiedObservation[]) {}
}

/**
 * Every observation of the body, checked; the event loop is free every OBSERVATIONS_PER_TURN
 * observations (issue 9, item 8: a body of 64 MB holds about a million observations, ~2 µs
 * each), before the next identifier's, so a body of up to that many never waits for a turn.
 */
export async function validateJsonObservationsInSteps(body: unknown): Promise<IdentifiedObservation[]> {
  const out: IdentifiedObservation[] = []
  const turnDue = loopTurnDue()
  for (const [id, list] of entries(body)) {
    if (turnDue(out.length)) await yieldToLoop()
    validateEntry(id, list, out)
  }
  return out
}

/**
 * Whether the event loop is due a turn with `count` observations read so far: once every
 * OBSERVATIONS_PER_TURN. Shared by validation and the JSON text reader (json-text.ts).
 */
export function loopTurnDue(): (count: number) => boolean {
  let next = OBSERVATIONS_PER_TURN
  return (count) => {
    if (count < next) return false
    next = count + OBSERVATIONS_PER_TURN
    return true
  }
}

/**
 * 1,000 observations: a step of 5,000 held the loop up to ~27 ms on a slow day of the test
 * machine while its code was not yet optimised (the first ingest after a start), enough with
 * the parse of the body to pass the 50 ms of test/api/bounded-requests.test.ts.
 */
export const OBSERVATIONS_PER_TURN = 1000

function entries(body: unknown): [string, unknown][] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidInputError('The body must be an object keyed by datapoint identifier')
  }
  return Object.entries(body)
}

function validateEntry(id: string, list: unknown, out: IdentifiedObservation[]): void {
  if (id.length === 0) throw new InvalidInputError('A datapoint identifier is empty')
  const problem = identifierProblem(id)
  if (problem) throw new InvalidInputError(`Refused: ${problem}`)
  if (id.length > MAX_IDENTIFIER_LENGTH) throw new InvalidInputError(`The datapoint identifier '${id.slice(0, 40)}...' is longer than ${MAX_IDENTIFIER_LENGTH} characters`)
  // As the CSV import refuses it (ingest/csv/errors.ts): one identifier rule for both uploads.
  if (id.includes('\\')) throw new InvalidInputError(`Refused: the datapoint identifier ${quoteIdentifier(id)} contains a backslash`)
  if (!Array.isArray(list)) throw new InvalidInputError(`The observations of '${id}' must be an array`)
  for (let i = 0; i < list.length; i++) {
    const o = list[i] as { time?: unknown; value?: unknown } | null
    if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new InvalidInputError(`Observation ${i} of '${id}' must be an object {time, value}`)
    if (typeof o.time !== 'string') throw new InvalidInputError(`Observation ${i} of '${id}': time must be an RFC 3339 timestamp string`)
    const time = parseTimestamp(o.time)
    if (time === undefined) throw new InvalidInputError(`Observation ${i} of '${id}': cannot parse time '${o.time}'`)
    if (typeof o.value !== 'number' || !Number.isFinite(o.value)) throw new InvalidInputError(`Observation ${i} of '${id}': value must be a finite number`)
    // Unknown fields are refused (README: a misspelt field must not pass for a missing one).
    for (const k in o) if (k !== 'time' && k !== 'value') throw new InvalidInputError(`Observation ${i} of '${id}': unknown field ${quoteIdentifier(k)} (only time and value)`)
    out.push({ id, time, value: o.value })
  }
}
