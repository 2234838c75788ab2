// tap `before` step (package.json "tap"): one TLS key pair for the whole test run.
import { generateRunTls } from './tls-pair.ts'

await generateRunTls()
