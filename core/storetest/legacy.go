package storetest

import (
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// LegacyPreview is a previews row as the release of schema version 5
// wrote it (Stored: its kind column, a pull's under "import"), and the
// kind it loads as once the store has migrated (Want).
type LegacyPreview struct {
	Handle, Plan string
	Stored       string
	Want         core.PreviewKind
}

// LegacyPreviews are the rows a store's migration test writes the old way:
// a pull's plan, an import's, one whose "pull" is null, one that is not
// JSON, and a progress plan (whatever its JSON holds, its kind stays).
func LegacyPreviews() []LegacyPreview {
	return []LegacyPreview{
		{"imp_pull", `{"version":1,"pull":{"document":"shop","path":"shop.md"},"entries":[]}`, "import", core.PreviewPull},
		{"imp_import", `{"version":3,"head":{"scope":"s"},"entries":[]}`, "import", core.PreviewImport},
		{"imp_nullpull", `{"version":3,"pull":null}`, "import", core.PreviewImport},
		{"imp_text", `not json, written by hand`, "import", core.PreviewImport},
		{"prg_progress", `{"version":1,"pull":{}}`, "progress", core.PreviewProgress},
	}
}

// CheckLegacyPreviews checks that every LegacyPreviews row loads from st
// with the kind it should have now and its plan unchanged.
func CheckLegacyPreviews(t *testing.T, st core.Store) {
	t.Helper()
	for _, r := range LegacyPreviews() {
		p, err := st.LoadPreview(t.Context(), r.Handle)
		if err != nil || p.Kind != r.Want || string(p.Plan) != r.Plan {
			t.Errorf("%s: kind %q plan %s, %v; want kind %q, the plan unchanged", r.Handle, p.Kind, p.Plan, err, r.Want)
		}
	}
}
