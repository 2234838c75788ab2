// test/api/mqtt-accounts.test.ts again, on a PostgreSQL catalog (test/helpers/on-postgres.ts).
import '../helpers/on-postgres.ts'
import '../api/mqtt-accounts.test.ts'
