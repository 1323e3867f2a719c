package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
)

// StartRun implements core.Store.
func (s *Store) StartRun(ctx context.Context, req core.StartRunRequest) (core.Run, bool, error) {
	var (
		run     core.Run
		started bool
	)
	err := s.write(ctx, "start the run for preview "+req.Handle, func(tx *sql.Tx) error {
		var err error
		run, started, err = sqlrows.StartRun(req, func() (core.Run, bool, error) { return getRun(ctx, tx, req.Key) }, func() (time.Time, error) {
			return consume(ctx, tx, req)
		})
		return err
	})
	if err != nil {
		return core.Run{}, false, err
	}
	return run, started, nil
}

// consume consumes req's handle and inserts its run, unless the preview
// may not be consumed (see sqlrows.Refusal); it returns the run's start
// time as stored.
func consume(ctx context.Context, tx *sql.Tx, req core.StartRunRequest) (time.Time, error) {
	err := sqlrows.Refusal(tx.QueryRowContext(ctx, `SELECT `+sqlrows.ConsumeColumns+` FROM previews WHERE handle = ?`, req.Handle), req, fromDBTime, sqlrows.Consume{
		NoRows:  sql.ErrNoRows,
		Missing: func() error { return notFound(ctx, tx, req.Handle) },
		RunOf: func(by string) (string, error) {
			return sqlrows.RunID(tx.QueryRowContext(ctx, `SELECT run_id FROM runs WHERE idempotency_key = ?`, by), sql.ErrNoRows)
		},
	})
	if err != nil {
		return time.Time{}, err
	}
	now := dbTime(req.Now)
	res, err := tx.ExecContext(ctx, `UPDATE previews SET consumed_at = ?, consumed_by = ? WHERE handle = ? AND consumed_at IS NULL`, now, req.Key, req.Handle)
	if err != nil {
		return time.Time{}, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return time.Time{}, err
	} else if n != 1 {
		return time.Time{}, fmt.Errorf("consume preview %s: %d rows changed", req.Handle, n)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO runs (idempotency_key, run_id, handle, state, started_at) VALUES (?, ?, ?, ?, ?)`,
		req.Key, req.RunID, req.Handle, string(core.RunInProgress), now); err != nil {
		return time.Time{}, err
	}
	return fromDBTime(now), nil
}

// getRun reads a run and its outcomes in one statement (one snapshot).
func getRun(ctx context.Context, q querier, key string) (core.Run, bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+sqlrows.RunColumns("run_outcomes")+`
		FROM runs r LEFT JOIN run_outcomes o ON o.idempotency_key = r.idempotency_key
		WHERE r.idempotency_key = ? ORDER BY o.seq`, key)
	if err != nil {
		return core.Run{}, false, err
	}
	defer rows.Close()
	return sqlrows.Run(rows, key, fromDBTime)
}

// lockRun selects the state of the run with key inside tx (the write
// transaction holds the database's write lock; see sqlrows.RunState).
func lockRun(ctx context.Context, tx *sql.Tx, key string) *sql.Row {
	return tx.QueryRowContext(ctx, `SELECT state FROM runs WHERE idempotency_key = ?`, key)
}

// RecordOutcomes implements core.Store: one transaction (one fsync of the
// WAL under synchronous=FULL) for the whole batch.
func (s *Store) RecordOutcomes(ctx context.Context, key string, outcomes []core.ItemOutcome) error {
	if len(outcomes) == 0 {
		return nil
	}
	return s.write(ctx, fmt.Sprintf("record %s of run %s", core.Plural(len(outcomes), "outcome", "outcomes"), key), func(tx *sql.Tx) error {
		if err := sqlrows.InProgress(lockRun(ctx, tx, key), key, sql.ErrNoRows); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO run_outcomes (idempotency_key, reference, action, issue_key, outcome, code, message)
			VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, o := range outcomes {
			if _, err := ins.ExecContext(ctx, key, string(o.Reference), string(o.Action), o.Key, o.Outcome, string(o.Code), o.Message); err != nil {
				return err
			}
		}
		return nil
	})
}

// FinishRun implements core.Store.
func (s *Store) FinishRun(ctx context.Context, key string, state core.RunState, result []byte, now time.Time) error {
	if err := storeerr.CheckFinalState(state); err != nil {
		return err
	}
	if result == nil {
		result = []byte{}
	}
	return s.write(ctx, "finish run "+key, func(tx *sql.Tx) error {
		if err := sqlrows.InProgress(lockRun(ctx, tx, key), key, sql.ErrNoRows); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE runs SET state = ?, result = ?, finished_at = ? WHERE idempotency_key = ? AND state = 'in_progress'`,
			string(state), result, dbTime(now), key)
		return err
	})
}

// GetRun implements core.Store.
func (s *Store) GetRun(ctx context.Context, key string) (core.Run, bool, error) {
	if err := s.check(); err != nil {
		return core.Run{}, false, err
	}
	r, found, err := getRun(ctx, s.db, key)
	if err != nil {
		return core.Run{}, false, s.fault(err, "read run "+key)
	}
	return r, found, nil
}
