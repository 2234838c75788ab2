// test/api/data-lifecycle.test.ts again, on a PostgreSQL catalog (test/helpers/on-postgres.ts).
import '../helpers/on-postgres.ts'
import '../api/data-lifecycle.test.ts'
