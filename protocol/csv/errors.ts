// The texts of CSV line errors (spec part 1, "Time series import and export", rule 3).
// One place: the importer produces them, the API wraps an abort as
// `Error in line <n>: <reason>` (lineErrorMessage below).

export const ERR_IDENTIFIER_EMPTY = 'Identifier is empty'
export const ERR_IDENTIFIER_BACKSLASH = 'Identifier contains a backslash'
/** The limit of every ingest path (protocol/line-protocol.ts MAX_ID_LENGTH, JSON's MAX_IDENTIFIER_LENGTH). */
export const ERR_IDENTIFIER_TOO_LONG = 'Identifier is longer than 1000 characters'
/** `Identifier contains the control character U+0000` (core/identifier.ts, issue 9). */
export function errIdentifierControl(code: string): string {
  return 'Identifier contains the control character ' + code
}
/** Prefix of `Cannot parse float: '<field>'`. */
export const ERR_FLOAT_PREFIX = 'Cannot parse float: '
/** Prefix of `Cannot parse datetime: '<field>'`. */
export const ERR_DATETIME_PREFIX = 'Cannot parse datetime: '

/** `Cannot parse float: '<field>'` (field as read: unquoted, trimmed; '' when missing). */
export function errFloat(field: string): string {
  return ERR_FLOAT_PREFIX + "'" + field + "'"
}

/** `Cannot parse datetime: '<field>'` (field as read: unquoted, trimmed; '' when missing). */
export function errDatetime(field: string): string {
  return ERR_DATETIME_PREFIX + "'" + field + "'"
}

/** The failure text of an aborted import: `Error in line <n>: <reason>`. */
export function lineErrorMessage(lineNo: number, reason: string): string {
  return 'Error in line ' + lineNo + ': ' + reason
}
