package pgstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	pgstore "github.com/devworkwire/devworkwire/store-postgres"
	"github.com/devworkwire/devworkwire/store-postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// An idle process holds no connection: the one its work took is closed
// within seconds of its last call (a team's agents idle most of the time,
// and the server admits only so many connections).
func TestIdleStoreReleasesItsConnections(t *testing.T) {
	url, schema := pgtest.URL(t), pgtest.Schema(t)
	s := open(t, url, schema)
	if _, _, err := s.GetRun(t.Context(), "some-key"); err != nil {
		t.Fatal(err)
	}
	if n := s.Pool().Stat().TotalConns(); n == 0 {
		t.Fatal("the store held no connection right after a call; the test cannot see it released")
	}
	deadline := time.Now().Add(15 * time.Second)
	for s.Pool().Stat().TotalConns() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the idle store still holds %d connections 15 s after its last call; want none after %s idle", s.Pool().Stat().TotalConns(), pgstore.DefaultMaxConnIdleTime)
		}
		<-time.After(100 * time.Millisecond)
	}
	if got := s.Pool().Config().MaxConns; got != pgstore.DefaultMaxConns {
		t.Errorf("at most %d connections at once; want the documented %d", got, pgstore.DefaultMaxConns)
	}
}

// "too many connections" (SQLSTATE 53300) is neither an unreachable
// server nor a misconfiguration: the store waits for a slot, and when
// none comes free in time it answers with a retryable error that says
// so.
func TestTooManyConnections(t *testing.T) {
	base := pgtest.URL(t)
	url := pgtest.LimitedDatabase(t, base, 1)
	ctx := t.Context()
	hold := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatalf("take the database's one connection: %v", err)
		}
		return c
	}

	t.Run("refused after the wait", func(t *testing.T) {
		c := hold()
		defer c.Close(context.Background())
		_, err := pgstore.Open(ctx, pgstore.Options{URL: url, Schema: pgtest.Schema(t), ConnectionWait: 300 * time.Millisecond})
		ce := wantCode(t, err, core.CodeInternal, true)
		if !strings.Contains(ce.Message, "too many connections") || !strings.Contains(ce.Message, "53300") || strings.Contains(ce.Message, "Cannot reach") {
			t.Errorf("message %q; want it to say the server has too many connections", ce.Message)
		}
		if len(ce.Details) != 1 || ce.Details[0].Field != "store" || ce.Details[0].Message != "too many connections" {
			t.Errorf("details %+v; want the store field, too many connections", ce.Details)
		}
	})

	// Every call waits for a slot as Open does: the audit trail's and the
	// gate policy's too.
	t.Run("every call waits", func(t *testing.T) {
		s, err := pgstore.Open(ctx, pgstore.Options{URL: url, Schema: pgtest.Schema(t), MaxConnIdleTime: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		at := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
		for _, call := range []struct {
			name string
			run  func() error
		}{
			{"AppendAudit", func() error {
				_, err := s.AppendAudit(ctx, core.AuditRecord{At: at, Event: core.AuditPreview, Handle: "imp_1"})
				return err
			}},
			{"ListAudit", func() error { _, _, err := s.ListAudit(ctx, core.AuditFilter{}, 0); return err }},
			{"SavePolicy", func() error { return s.SavePolicy(ctx, core.GatePolicy{Agents: core.PolicyAskPerson, SetAt: at}) }},
			{"LoadPolicy", func() error { _, err := s.LoadPolicy(ctx); return err }},
		} {
			// The slot, once the idle store has given its connection back
			// (the server counts it until its backend has exited).
			var c *pgx.Conn
			for deadline := time.Now().Add(15 * time.Second); c == nil; {
				if c, err = pgx.Connect(ctx, url); err != nil && time.Now().After(deadline) {
					t.Fatalf("before %s: the database's one connection never came free: %v", call.name, err)
				}
				<-time.After(20 * time.Millisecond)
			}
			done := make(chan error, 1)
			go func() { done <- call.run() }()
			select {
			case err := <-done:
				c.Close(context.Background())
				t.Fatalf("%s with every slot taken returned at once: %v", call.name, err)
			case <-time.After(500 * time.Millisecond):
			}
			c.Close(context.Background())
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s once the slot was free: %v", call.name, err)
				}
			case <-time.After(pgstore.DefaultConnectionWait):
				t.Fatalf("%s did not go on once a slot was free", call.name)
			}
		}
	})

	t.Run("waited out", func(t *testing.T) {
		schema := pgtest.Schema(t)
		c := hold()
		opened := make(chan error, 1)
		go func() {
			s, err := pgstore.Open(ctx, pgstore.Options{URL: url, Schema: schema})
			if err == nil {
				s.Close()
			}
			opened <- err
		}()
		// The open waits while the slot is taken...
		select {
		case err := <-opened:
			c.Close(context.Background())
			t.Fatalf("Open with every slot taken returned at once: %v", err)
		case <-time.After(500 * time.Millisecond):
		}
		// ...and goes on once it is free.
		c.Close(context.Background())
		select {
		case err := <-opened:
			if err != nil {
				t.Fatalf("Open once the slot was free: %v", err)
			}
		case <-time.After(pgstore.DefaultConnectionWait):
			t.Fatal("Open did not go on once a slot was free")
		}
	})
}
