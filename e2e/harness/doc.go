// Package harness starts the real parts the end-to-end suite and the
// benchmark driver run against: the dwire and mockjira binaries built from
// this checkout, the fake Jira as a FROM-scratch container (testcontainers,
// host networking, no registry) or as a local process when no Docker engine
// is reachable. The suite's PostgreSQL server comes from
// store-postgres/pgtest.Find (DWIRE_TEST_POSTGRES_URL, or a throwaway
// cluster).
package harness
