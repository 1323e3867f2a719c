package sqlitestore_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/devworkwire/devworkwire/core/storetest"
	sqlitestore "github.com/devworkwire/devworkwire/store-sqlite"
)

// BenchmarkSaveLoadConsume: save+load+consume cycles per second, one client
// and 16 concurrent clients on one file.
func BenchmarkSaveLoadConsume(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			s, err := sqlitestore.Open(b.Context(), sqlitestore.Options{Path: filepath.Join(b.TempDir(), "bench.db")})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchSaveLoadConsume(b, s, clients)
		})
	}
}

// BenchmarkLockCycle: AcquireLock + release cycles per second, one client
// and 16 concurrent clients on one file.
func BenchmarkLockCycle(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			s, err := sqlitestore.Open(b.Context(), sqlitestore.Options{Path: filepath.Join(b.TempDir(), "bench.db")})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchLockCycle(b, s, clients)
		})
	}
}
