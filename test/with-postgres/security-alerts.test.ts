// test/security/alerts.test.ts again, on a PostgreSQL catalog (test/helpers/on-postgres.ts).
import '../helpers/on-postgres.ts'
import '../security/alerts.test.ts'
