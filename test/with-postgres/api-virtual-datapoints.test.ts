// test/api/virtual-datapoints.test.ts again, on a PostgreSQL catalog (test/helpers/on-postgres.ts).
import '../helpers/on-postgres.ts'
import '../api/virtual-datapoints.test.ts'
