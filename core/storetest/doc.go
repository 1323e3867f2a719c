// Package storetest is the contract suite for core.Store: every
// implementation (core/memstore, store-sqlite, store-postgres) runs Run from
// one test with a Harness that can open and reopen the same underlying
// store, so restarts and crashes are part of the contract. Clocks are
// injected (Clock); nothing sleeps.
//
// The package also holds the multi-process race helpers (ProcessRace for
// StartRun, ProcessLockRace for AcquireLock, ProcessCrash, and
// RunChildIfRequested) used by the stores whose data outlives a process,
// and the benchmarks BenchSaveLoadConsume and BenchLockCycle.
package storetest
