package memstore

import (
	"testing"

	"github.com/devworkwire/devworkwire/core/storetest"
)

// BenchmarkStore: the store suite's benchmarks (save+load+consume and
// lock cycles per second, 1 and 16 concurrent clients).
func BenchmarkStore(b *testing.B) { storetest.RunBenchmarks(b, newHarness) }
