package plan

import (
	"slices"
	"strings"
	"testing"
)

func TestDriftTakeDocumentFieldList(t *testing.T) {
	o := Options{CustomFields: []string{"Team"}}
	for _, tc := range []struct {
		doc  string
		want []string
		bad  string
	}{
		{"Drift: take-document", nil, ""},
		{"Drift: take-document priority, description", []string{"priority", "description"}, ""},
		{"Drift: take-document Fix versions, team, acceptance criteria", []string{"fix_versions", "fields.Team", "acceptance_criteria"}, ""},
		{"Drift: take-document priorty", nil, `names "priorty", which is not a field (did you mean "Priority"?)`},
		{"Drift: take-document priority,", nil, "empty entry"},
		{"Drift: keep", nil, "the only drift marker"},
	} {
		doc := "---\nid: d\n---\n## Epic e-1: E\n" + tc.doc + "\n\nText.\n"
		d, err := o.Parse("d.md", []byte(doc))
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: err %v; want %q", tc.doc, err, tc.bad)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.doc, err)
		}
		if it := d.Items[0]; !it.TakeDocument || !slices.Equal(it.TakeFields, tc.want) {
			t.Errorf("%q: TakeDocument %v, TakeFields %q; want %q", tc.doc, it.TakeDocument, it.TakeFields, tc.want)
		}
	}
	y := "id: d\nepics:\n  - id: e-1\n    title: E\n    drift: take-document priority\n"
	d, err := o.Parse("d.yaml", []byte(y))
	if err != nil || !slices.Equal(d.Items[0].TakeFields, []string{"priority"}) {
		t.Errorf("YAML: %v %+v", err, d)
	}
}
