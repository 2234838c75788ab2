// Typed errors with stable codes (STYLE.md, undici's lib/core/errors.js). Every layer throws
// these; api/error-handler.ts maps them to the failure envelope and an HTTP status in one place.
//
// A code names a condition, not a status: the catalogue below gives each code its status and
// what it means, and docs/errors.md and the OpenAPI document list the same codes (a test,
// test/core/error-catalogue.test.ts, fails when one is missing there). The classes per status
// are conveniences: each takes the codes of its status, and without one it gives the code of
// "any other condition of this status" (INVALID_INPUT, NOT_FOUND, ...), which stay as they were.

/** Every code a Lintel error can carry, with its HTTP status and the condition it names. */
export const ERROR_CATALOGUE = {
  // 400
  INVALID_INPUT: { status: 400, condition: 'A value of the request is invalid; the text names it and why' },
  VALIDATION_FAILED: { status: 400, condition: 'A parameter or body field does not match the route schema (missing, unknown, wrong type or out of range)' },
  MALFORMED_JSON: { status: 400, condition: 'The body is not well-formed JSON' },
  VDP_CONFIG_INVALID: { status: 400, condition: 'The pins or parameters of a virtual datapoint are invalid; the text names the field' },
  ALERT_CONFIG_INVALID: { status: 400, condition: 'The thresholds, throughput or notification of an alert are invalid; the text names the field' },
  REPLAY_REFUSED: { status: 400, condition: 'The virtual datapoint cannot be replayed (a time trigger)' },
  CONTROLS_APP_CONFIG_INVALID: { status: 400, condition: 'The configuration of a controls app or a holiday calendar is invalid; the text names the field (a JSON path such as configuration.week[2].time) and the reason' },
  // 401
  UNAUTHENTICATED: { status: 401, condition: 'No credentials, or wrong ones (answered with WWW-Authenticate)' },
  // 403
  FORBIDDEN: { status: 403, condition: 'Any other refusal of a grant the caller lacks (granting beyond the own permissions, a setpoint priority above the project maximum, ...)' },
  ENDPOINT_NOT_GRANTED: { status: 403, condition: 'No role of the caller grants the endpoint: `Unauthorized access to endpoint: <number> - <METHOD> <path>`' },
  DATAPOINT_ACCESS_DENIED: { status: 403, condition: "A datapoint the request names is not readable or writable through the endpoint's TagAuths: `No read access to datapoint '<id>'`, `No write access to datapoint '<id>'`" },
  // 404
  NOT_FOUND: { status: 404, condition: 'The resource is unknown, of another company, or not visible to the caller' },
  DATAPOINT_NOT_FOUND: { status: 404, condition: "The datapoint is unknown or not readable through the endpoint's TagAuths (answered alike): `Datapoint '<id>' not found in project <n>`" },
  ROUTE_NOT_FOUND: { status: 404, condition: 'No route has this method and path' },
  // 409
  CONFLICT: { status: 409, condition: 'A unique name is taken (email, MQTT username, role name, active virtual datapoint, ...), or another conflict the text names' },
  TRANSITION_REFUSED: { status: 409, condition: "The resource's state does not allow the change (its lifecycle table)" },
  REPLAY_BUSY: { status: 409, condition: 'A replay of the virtual datapoint is under way' },
  DATAPOINT_IN_USE: { status: 409, condition: 'The datapoint cannot be deleted while virtual datapoints or controls apps use it; the text names them' },
  // 408
  REQUEST_TIMEOUT: { status: 408, condition: 'The request body arrived too slowly (a document upload below its minimum rate, another body not complete within LINTEL_HTTP_BODY_TIMEOUT_S); nothing of it was stored' },
  // 413
  TOO_LARGE: { status: 413, condition: 'Over a quota or a size limit' },
  BODY_TOO_LARGE: { status: 413, condition: 'The request body is larger than the route accepts' },
  UPLOAD_TOO_LARGE: { status: 413, condition: 'The uploaded file is larger than the upload limit' },
  // 415
  UNSUPPORTED_MEDIA_TYPE: { status: 415, condition: 'The body is not of a content type the route accepts (JSON, or multipart for uploads)' },
  // 429
  TOO_MANY_REQUESTS: { status: 429, condition: 'Too many failed logins from this address or for this account, too many uploads of the company at once, or too many "already exists" answers to the company (answered with Retry-After)' },
  // 500
  INTERNAL: { status: 500, condition: 'An unexpected error; the server logs it' },
  // 503
  OVERLOADED: { status: 503, condition: 'A bounded queue is full, or the store is busy or unreachable; retry later' },
  LOG_UNAVAILABLE: { status: 503, condition: 'The observation log (Kafka in scaled mode) is unreachable; retry later' },
  // 507
  INSUFFICIENT_STORAGE: { status: 507, condition: 'The storage is full (disk or quota of the file system); nothing of the request was stored' },
} as const satisfies Record<string, { status: number; condition: string }>

export type ErrorCode = keyof typeof ERROR_CATALOGUE
/** The codes whose status is `S`. */
export type CodeOf<S extends number> = { [K in ErrorCode]: (typeof ERROR_CATALOGUE)[K]['status'] extends S ? K : never }[ErrorCode]

/** A code, or (for the code of any other condition) the options of Error, e.g. `{ cause }`. */
type CodeOrOptions<C extends ErrorCode> = C | ErrorOptions | undefined
/** Options of a refusal the client may retry: `retryAfterMs` becomes `Retry-After`. */
type RetryOptions = ErrorOptions & { retryAfterMs?: number }

export class LintelError extends Error {
  readonly code: ErrorCode
  readonly status: number
  /** `otherwise`: the code when none is given (the classes per status give theirs). */
  constructor (message: string, code?: CodeOrOptions<ErrorCode>, options?: ErrorOptions, otherwise: ErrorCode = 'INTERNAL') {
    super(message, typeof code === 'object' ? code : options)
    this.code = typeof code === 'string' ? code : otherwise
    this.status = ERROR_CATALOGUE[this.code].status
  }
}

/** 400: the request is understood but its content is invalid. */
export class InvalidInputError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<400>>, options?: ErrorOptions) { super(message, code, options, 'INVALID_INPUT') }
}

/** 401: no credentials, or wrong ones. */
export class AuthenticationError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<401>>, options?: ErrorOptions) { super(message, code, options, 'UNAUTHENTICATED') }
}

/** 403: the caller's roles do not grant this. */
export class ForbiddenError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<403>>, options?: ErrorOptions) { super(message, code, options, 'FORBIDDEN') }
}

/** 404: unknown resource, or one of another company (companies never see each other). */
export class NotFoundError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<404>>, options?: ErrorOptions) { super(message, code, options, 'NOT_FOUND') }
}

/** 409: a unique name is taken (email, MQTT username, role name, ...), or a state refuses a change. */
export class ConflictError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<409>>, options?: ErrorOptions) { super(message, code, options, 'CONFLICT') }
}

/** 413: over a size limit or quota. */
export class TooLargeError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<413>>, options?: ErrorOptions) { super(message, code, options, 'TOO_LARGE') }
}

/**
 * 429: too many failed logins from this address or for this account (issue 9, item 6); the
 * attempt was refused without checking the credentials. Answered with `Retry-After`.
 */
export class TooManyRequestsError extends LintelError {
  /** Whole seconds the client should wait before trying again (at least 1). */
  readonly retryAfterSeconds: number
  constructor (message: string, retryAfterMs: number) {
    super(message, 'TOO_MANY_REQUESTS')
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
  }
}

/** 415: the body's media type or content coding is not one the endpoint reads (e.g. Content-Encoding: gzip). */
export class UnsupportedMediaTypeError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<415>>, options?: ErrorOptions) { super(message, code, options, 'UNSUPPORTED_MEDIA_TYPE') }
}

/** 503: overloaded (a bounded queue is full); the client should retry later (`Retry-After` when known). */
export class OverloadedError extends LintelError {
  /** Whole seconds the client should wait before trying again (`Retry-After`), when known. */
  readonly retryAfterSeconds: number | undefined
  constructor (message: string, code?: CodeOf<503> | RetryOptions, options?: RetryOptions) {
    super(message, code, options, 'OVERLOADED')
    const ms = (typeof code === 'object' ? code : options)?.retryAfterMs
    this.retryAfterSeconds = ms === undefined ? undefined : Math.max(1, Math.ceil(ms / 1000))
  }
}

/** 408: the request body arrived too slowly (issue 29: a slow body cannot hold a server's resources). */
export class RequestTimeoutError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<408>>, options?: ErrorOptions) { super(message, code, options, 'REQUEST_TIMEOUT') }
}

/** 507: the storage is full; nothing of the request was stored. */
export class InsufficientStorageError extends LintelError {
  constructor (message: string, code?: CodeOrOptions<CodeOf<507>>, options?: ErrorOptions) { super(message, code, options, 'INSUFFICIENT_STORAGE') }
}

export const errorClasses = [
  InvalidInputError, AuthenticationError, ForbiddenError, NotFoundError,
  ConflictError, TooLargeError, TooManyRequestsError, OverloadedError, UnsupportedMediaTypeError,
  RequestTimeoutError, InsufficientStorageError,
] as const
