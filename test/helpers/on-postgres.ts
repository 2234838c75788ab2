// The platform-level tests whose promises live in the catalog run twice in `npm test`: on
// SQLite where they are (coverage is measured there) and on PostgreSQL through the files of
// test/with-postgres/, each importing this module first and then the test file itself, so
// every platform it builds (test/helpers/platform.ts) gets a PostgreSQL test database.
// They are files of the one tap run, not a second run after it: tap's jobs take them as any
// other file, and their folder sorts after test/readme/ (tap starts files in name order), so
// they fill the time the long README test leaves the other job instead of adding a serial
// pass (scripts/test-postgres.sh runs them, or any file, on PostgreSQL alone).
// Which files: grants and TagAuths, logins, MQTT accounts, document quotas and their lock,
// alerts and analyses stored per project, the envelope of catalog errors. Files about the
// store, the broker or a live process read the catalog only through these same paths.
process.env.LINTEL_TEST_CATALOG = 'postgres'
