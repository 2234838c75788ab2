// test/api/exports.test.ts again, on a PostgreSQL catalog (test/helpers/on-postgres.ts).
import '../helpers/on-postgres.ts'
import '../api/exports.test.ts'
