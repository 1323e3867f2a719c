// Package memstore is an in-memory core.Store for tests and for running
// DevWorkWire without persistent state. It passes core/storetest; its data
// lives as long as the process (Reopen shares it to simulate a restart).
package memstore
