package pgstore_test

import (
	"fmt"
	"testing"

	"github.com/devworkwire/devworkwire/core/storetest"
	pgstore "github.com/devworkwire/devworkwire/store-postgres"
	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
)

// BenchmarkSaveLoadConsume: save+load+consume cycles per second, one client
// and 16 concurrent clients on one pool.
func BenchmarkSaveLoadConsume(b *testing.B) {
	url := pgtest.URL(b)
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			s, err := pgstore.Open(b.Context(), pgstore.Options{URL: url, Schema: pgtest.Schema(b), MaxConns: 16})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchSaveLoadConsume(b, s, clients)
		})
	}
}

// BenchmarkLockCycle: AcquireLock + release cycles per second, one client
// and 16 concurrent clients on one pool.
func BenchmarkLockCycle(b *testing.B) {
	url := pgtest.URL(b)
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			s, err := pgstore.Open(b.Context(), pgstore.Options{URL: url, Schema: pgtest.Schema(b), MaxConns: 16})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchLockCycle(b, s, clients)
		})
	}
}
