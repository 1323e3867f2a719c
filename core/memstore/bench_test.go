package memstore

import (
	"fmt"
	"testing"

	"github.com/devworkwire/devworkwire/core/storetest"
)

// BenchmarkSaveLoadConsume: save+load+consume cycles per second, one client
// and 16 concurrent clients.
func BenchmarkSaveLoadConsume(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			storetest.BenchSaveLoadConsume(b, New(Options{}), clients)
		})
	}
}

// BenchmarkLockCycle: AcquireLock + release cycles per second.
func BenchmarkLockCycle(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			storetest.BenchLockCycle(b, New(Options{}), clients)
		})
	}
}
