// Typed errors with stable codes (STYLE.md, undici's lib/core/errors.js). Every layer throws
// these; api/error-handler.ts maps them to the failure envelope and an HTTP status in one place.

export class LintelError extends Error {
  readonly code: string = 'LINTEL_ERROR'
  readonly status: number = 500
}

/** 400: the request is understood but its content is invalid. */
export class InvalidInputError extends LintelError {
  override readonly code = 'INVALID_INPUT'
  override readonly status = 400
}

/** 401: no credentials, or wrong ones. */
export class AuthenticationError extends LintelError {
  override readonly code = 'UNAUTHENTICATED'
  override readonly status = 401
}

/** 403: the caller's roles do not grant this. */
export class ForbiddenError extends LintelError {
  override readonly code = 'FORBIDDEN'
  override readonly status = 403
}

/** 404: unknown resource, or one of another company (companies never see each other). */
export class NotFoundError extends LintelError {
  override readonly code = 'NOT_FOUND'
  override readonly status = 404
}

/** 409: a unique name is taken (email, MQTT username, role name, ...). */
export class ConflictError extends LintelError {
  override readonly code = 'CONFLICT'
  override readonly status = 409
}

/** 413: over a size limit or quota. */
export class TooLargeError extends LintelError {
  override readonly code = 'TOO_LARGE'
  override readonly status = 413
}

/**
 * 429: too many failed logins from this address or for this account (issue 9, item 6); the
 * attempt was refused without checking the credentials. Answered with `Retry-After`.
 */
export class TooManyRequestsError extends LintelError {
  override readonly code = 'TOO_MANY_REQUESTS'
  override readonly status = 429
  /** Whole seconds the client should wait before trying again (at least 1). */
  readonly retryAfterSeconds: number
  constructor (message: string, retryAfterMs: number) {
    super(message)
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
  }
}

/** 415: the body's media type or content coding is not one the endpoint reads (e.g. Content-Encoding: gzip). */
export class UnsupportedMediaTypeError extends LintelError {
  override readonly code = 'UNSUPPORTED_MEDIA_TYPE'
  override readonly status = 415
}

/** 503: overloaded (a bounded queue is full); the client should retry later (`Retry-After` when known). */
export class OverloadedError extends LintelError {
  override readonly code = 'OVERLOADED'
  override readonly status = 503
  readonly retryAfterSeconds: number | undefined
  constructor (message: string, options?: ErrorOptions & { retryAfterMs?: number }) {
    super(message, options)
    const ms = options?.retryAfterMs
    this.retryAfterSeconds = ms === undefined ? undefined : Math.max(1, Math.ceil(ms / 1000))
  }
}

/** 408: the request body arrived too slowly (issue 29: a slow body cannot hold a server's resources). */
export class RequestTimeoutError extends LintelError {
  override readonly code = 'REQUEST_TIMEOUT'
  override readonly status = 408
}

/** 507: the storage is full; nothing of the request was stored. */
export class InsufficientStorageError extends LintelError {
  override readonly code = 'INSUFFICIENT_STORAGE'
  override readonly status = 507
}

export const errorClasses = [
  InvalidInputError, AuthenticationError, ForbiddenError, NotFoundError,
  ConflictError, TooLargeError, TooManyRequestsError, OverloadedError, UnsupportedMediaTypeError,
  RequestTimeoutError, InsufficientStorageError,
] as const
