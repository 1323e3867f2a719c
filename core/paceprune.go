package core

import "time"

// PaceUnused reports whether a pacing state a store keeps (body, as
// EncodePace wrote it) was last used before cutoff: its key may be
// deleted (Retention.Pace; a deleted key starts again as a new one, at
// PaceStartRate). A body that does not decode is kept.
func PaceUnused(body []byte, cutoff time.Time) bool {
	st, err := DecodePace(body)
	if err != nil {
		return false
	}
	last := st.At
	for _, t := range []time.Time{st.Pause, st.Cut, st.Short} {
		if t.After(last) {
			last = t
		}
	}
	return last.Before(cutoff)
}
