package sqlrows

import (
	"encoding/json"
	"time"

	"github.com/devworkwire/devworkwire/core"
)

// DocumentColumns are the columns Documents reads, in order, from
// documents (items is a JSON array of item ids).
const DocumentColumns = `document, path, items, updated_at`

// DocumentItems is the items column of a document record.
func DocumentItems(items []string) (string, error) {
	if items == nil {
		items = []string{}
	}
	b, err := json.Marshal(items)
	return string(b), err
}

// Documents reads the document records of scope from rows of
// DocumentColumns, by document id.
func Documents[T any](rows Rows, scope string, toTime func(T) time.Time) (map[string]core.DocumentRecord, error) {
	out := map[string]core.DocumentRecord{}
	for rows.Next() {
		var (
			r       = core.DocumentRecord{Scope: scope}
			items   string
			updated T
		)
		if err := rows.Scan(&r.Document, &r.Path, &items, &updated); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(items), &r.Items); err != nil {
			return nil, err
		}
		if len(r.Items) == 0 {
			r.Items = nil
		}
		r.UpdatedAt = toTime(updated)
		out[r.Document] = r
	}
	return out, rows.Err()
}
