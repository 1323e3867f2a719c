package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/storeerr"
	"github.com/devworkwire/devworkwire/store-kit/sqlrows"
	"github.com/jackc/pgx/v5"
)

// errRetry asks StartRun to run its transaction again: a concurrent
// transaction with the same key committed first.
var errRetry = errors.New("retry")

// StartRun implements core.Store.
//
// Under READ COMMITTED, the conditional UPDATE … WHERE consumed_at IS NULL
// waits for a concurrent consumer's row lock and then re-checks the row, so
// exactly one transaction consumes the handle. A loser with the winner's
// key, or a key inserted concurrently for another handle, retries and then
// sees the committed run.
func (s *Store) StartRun(ctx context.Context, req core.StartRunRequest) (core.Run, bool, error) {
	var (
		run     core.Run
		started bool
	)
	op := "start the run for preview " + req.Handle
	for range 5 {
		err := s.write(ctx, op, func(tx pgx.Tx) error {
			var err error
			run, started, err = sqlrows.StartRun(req, func() (core.Run, bool, error) { return s.getRun(ctx, tx, req.Key) }, func() (time.Time, error) {
				return s.consume(ctx, tx, req)
			})
			return err
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err != nil {
			return core.Run{}, false, err
		}
		return run, started, nil
	}
	return core.Run{}, false, core.Errorf(core.CodeInternal, "Could not %s: it kept conflicting with concurrent commits. Try again.", op)
}

// consume consumes req's handle with a conditional UPDATE and inserts its
// run, or says why the handle may not be consumed (whyNotConsumed); it
// returns the run's start time as stored. errRetry asks for another try.
func (s *Store) consume(ctx context.Context, tx pgx.Tx, req core.StartRunRequest) (time.Time, error) {
	now := dbTime(req.Now)
	tag, err := tx.Exec(ctx, s.q(`UPDATE {schema}.previews SET consumed_at = $1, consumed_by = $2
		WHERE handle = $3 AND consumed_at IS NULL AND expires_at > $1 AND ($4 = '' OR plan_digest = $4)`), now, req.Key, req.Handle, req.PlanDigest)
	if err != nil {
		return time.Time{}, err
	}
	if tag.RowsAffected() == 0 {
		return time.Time{}, s.whyNotConsumed(ctx, tx, req)
	}
	tag, err = tx.Exec(ctx, s.q(`INSERT INTO {schema}.runs (idempotency_key, run_id, handle, state, started_at)
		VALUES ($1, $2, $3, 'in_progress', $4) ON CONFLICT (idempotency_key) DO NOTHING`), req.Key, req.RunID, req.Handle, now)
	if err != nil {
		return time.Time{}, err
	}
	if tag.RowsAffected() == 0 {
		return time.Time{}, errRetry // the key was taken meanwhile: roll back the consumption
	}
	return now, nil
}

// whyNotConsumed explains a conditional UPDATE that changed nothing.
func (s *Store) whyNotConsumed(ctx context.Context, tx pgx.Tx, req core.StartRunRequest) error {
	err := sqlrows.Refusal(tx.QueryRow(ctx, s.q(`SELECT `+sqlrows.ConsumeColumns+` FROM {schema}.previews WHERE handle = $1`), req.Handle), req, fromDBTime, sqlrows.Consume{
		NoRows:  pgx.ErrNoRows,
		Missing: func() error { return s.notFound(ctx, tx, req.Handle) },
		RunOf: func(by string) (string, error) {
			if by == req.Key {
				return "", errRetry // a concurrent call with our key won: read its run
			}
			return sqlrows.RunID(tx.QueryRow(ctx, s.q(`SELECT run_id FROM {schema}.runs WHERE idempotency_key = $1`), by), pgx.ErrNoRows)
		},
	})
	if err == nil {
		// Neither consumed nor expired nor changed now: the row changed
		// under the UPDATE (a consumer rolled back). Try again.
		return errRetry
	}
	return err
}

// getRun reads a run and its outcomes in one statement (one snapshot).
func (s *Store) getRun(ctx context.Context, q querier, key string) (core.Run, bool, error) {
	rows, err := q.Query(ctx, s.q(`SELECT `+sqlrows.RunColumns("{schema}.run_outcomes")+`
		FROM {schema}.runs r LEFT JOIN {schema}.run_outcomes o ON o.idempotency_key = r.idempotency_key
		WHERE r.idempotency_key = $1 ORDER BY o.seq`), key)
	if err != nil {
		return core.Run{}, false, err
	}
	defer rows.Close()
	return sqlrows.Run(rows, key, fromDBTime)
}

// lockRun locks the run row (FOR UPDATE) and selects its state (see
// sqlrows.RunState).
func (s *Store) lockRun(ctx context.Context, tx pgx.Tx, key string) pgx.Row {
	return tx.QueryRow(ctx, s.q(`SELECT state FROM {schema}.runs WHERE idempotency_key = $1 FOR UPDATE`), key)
}

// RecordOutcomes implements core.Store: one transaction for the whole
// batch, its inserts sent in one round trip (in order: seq follows them).
func (s *Store) RecordOutcomes(ctx context.Context, key string, outcomes []core.ItemOutcome) error {
	if len(outcomes) == 0 {
		return nil
	}
	return s.write(ctx, fmt.Sprintf("record %s of run %s", core.Plural(len(outcomes), "outcome", "outcomes"), key), func(tx pgx.Tx) error {
		if err := sqlrows.InProgress(s.lockRun(ctx, tx, key), key, pgx.ErrNoRows); err != nil {
			return err
		}
		var b pgx.Batch
		ins := s.q(`INSERT INTO {schema}.run_outcomes (idempotency_key, reference, action, issue_key, outcome, code, message)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`)
		for _, o := range outcomes {
			b.Queue(ins, key, string(o.Reference), string(o.Action), o.Key, o.Outcome, string(o.Code), o.Message)
		}
		br := tx.SendBatch(ctx, &b)
		for range outcomes {
			if _, err := br.Exec(); err != nil {
				_ = br.Close()
				return err
			}
		}
		return br.Close()
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
	return s.write(ctx, "finish run "+key, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, s.q(`UPDATE {schema}.runs SET state = $2, result = $3, finished_at = $4
			WHERE idempotency_key = $1 AND state = 'in_progress'`), key, string(state), result, dbTime(now))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		cur, err := sqlrows.RunState(s.lockRun(ctx, tx, key), key, pgx.ErrNoRows)
		if err != nil {
			return err
		}
		return storeerr.RunFinished(key, cur)
	})
}

// GetRun implements core.Store.
func (s *Store) GetRun(ctx context.Context, key string) (core.Run, bool, error) {
	if err := s.check(); err != nil {
		return core.Run{}, false, err
	}
	r, found, err := s.getRun(ctx, s.db, key)
	if err != nil {
		return core.Run{}, false, s.fault(err, "read run "+key)
	}
	return r, found, nil
}
