// Package storetest is the contract suite for core.Store: every
// implementation (core/storetest/memstore, store-sqlite, store-postgres) runs it from
// one test function with a HarnessMaker whose Harness can open and reopen
// the same underlying store, so restarts and crashes are part of the
// contract. Clocks are injected (Clock); nothing sleeps.
//
//	func TestContract(t *testing.T)   { storetest.Run(t, newHarness) }
//	func BenchmarkStore(b *testing.B) { storetest.RunBenchmarks(b, newHarness) }
//
// A store whose data outlives a process implements ProcessHarness too;
// Run then also runs the cross-process cases (StartRun, AcquireLock and
// Fence races between OS processes, a process killed mid-run), whose
// children are the test binary re-executed: its TestMain calls
// RunChildIfRequested first. The shape (HarnessMaker → Harness, optional
// capabilities as interfaces, a separate benchmark entry point) is the one
// core/providertest uses too.
package storetest
