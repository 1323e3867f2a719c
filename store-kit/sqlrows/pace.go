package sqlrows

import (
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// PaceColumns are the columns UnusedPace reads, in order, from the pace
// table.
const PaceColumns = `key, state`

// UnusedPace reads the pace table's rows (PaceColumns) and returns those
// last used before cutoff (core.PaceUnused), key → state as read: the
// store deletes each only while its state is still what was read, so a
// TakePace in between keeps its row.
func UnusedPace(rows Rows, cutoff time.Time) (map[string][]byte, error) {
	out := map[string][]byte{}
	for rows.Next() {
		var (
			key  string
			body []byte
		)
		if err := rows.Scan(&key, &body); err != nil {
			return nil, err
		}
		if core.PaceUnused(body, cutoff) {
			out[key] = body
		}
	}
	return out, rows.Err()
}
