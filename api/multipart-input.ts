// What a broken multipart body becomes (issue 29: the fuzz test found 500s). The parser
// (@fastify/busboy under @fastify/multipart) throws plain Errors for a Content-Type without
// a boundary and for a body that ends before its closing boundary; those are the client's
// input, not a server fault, so both upload routes (CSV import, documents) answer 400 naming
// what was wrong. A second file in a one-file form is refused too (the parser's files limit):
// before, the CSV import read the first file and silently ignored the second.
import type { MultipartFile, Multipart } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { InvalidInputError } from '../core/errors.ts'

/** The client-side multipart failure `err` stands for, as a typed error; anything else unchanged. */
export function multipartInputError(err: unknown, field: string): unknown {
  const e = err as { message?: string; code?: string }
  if (e?.message === 'Multipart: Boundary not found') {
    return new InvalidInputError('The multipart/form-data Content-Type has no boundary parameter')
  }
  if (typeof e?.message === 'string' && /unexpected end of multipart data/i.test(e.message)) {
    return new InvalidInputError('The multipart body ends before its closing boundary (a truncated upload, or another boundary than the Content-Type names)')
  }
  if (e?.code === 'FST_FILES_LIMIT') return tooManyFiles(field)
  if (e?.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return new InvalidInputError(`The upload must be multipart/form-data with the file in the form field ${field}`)
  return err
}

const tooManyFiles = (field: string) => new InvalidInputError(`One file per upload: the form carries more than one file (send the file in the form field ${field} only)`)

/**
 * The one file of the form (fields before it are skipped), and `rest()`, to be awaited once the
 * file was read: it refuses a second file. Parser errors come out as multipartInputError().
 */
export async function oneFile(req: FastifyRequest, field: string): Promise<{ part: MultipartFile | undefined; rest: () => Promise<void> }> {
  try {
    const parts = req.parts()
    let part: MultipartFile | undefined
    for (;;) {
      const next = await parts.next()
      if (next.done) break
      if (isFile(next.value)) { part = next.value; break }
    }
    const rest = async () => {
      try {
        for (;;) {
          const next = await parts.next()
          if (next.done) return
          if (isFile(next.value)) { next.value.file.resume(); throw tooManyFiles(field) }
        }
      } catch (err) {
        throw multipartInputError(err, field)
      }
    }
    return { part, rest }
  } catch (err) {
    throw multipartInputError(err, field)
  }
}

const isFile = (p: Multipart): p is MultipartFile => (p as MultipartFile).file !== undefined
