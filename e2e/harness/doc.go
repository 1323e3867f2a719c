// Package harness starts the real parts the end-to-end suite and the
// benchmark driver run against: the dwire and mockjira binaries built from
// this checkout, the fake Jira as a FROM-scratch container (testcontainers,
// host networking, no registry) or as a local process when no Docker engine
// is reachable, and a PostgreSQL server from DWIRE_TEST_POSTGRES_URL.
package harness
