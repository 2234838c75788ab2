// test/security/every-endpoint.test.ts again, on a PostgreSQL catalog (test/helpers/on-postgres.ts).
import '../helpers/on-postgres.ts'
import '../security/every-endpoint.test.ts'
