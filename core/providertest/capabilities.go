package providertest

import (
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

// The contracts of the optional capabilities core.DuplicateChecker and
// core.ItemChecker. A provider without one skips its test.

var capabilityTests = []struct {
	name string
	f    func(*testing.T, *suite)
}{
	{"DuplicatesAfterCreate", testDuplicates},
	{"CheckItemsAgreesWithCreate", testCheckItems},
	{"RecordBase", testRecordBase}, // core.BaseRecorder (a pull; base.go)
}

// capability returns the provider as T, or skips the test when it has no
// such capability.
func capability[T any](t *testing.T, s *suite, name string) T {
	t.Helper()
	c, ok := s.Provider.(T)
	if !ok {
		t.Skip("the provider has no " + name + " capability")
	}
	return c
}

// testDuplicates: a reference created once is not reported; created again
// (as another store's commit at the same moment would), each holder's
// check names both keys, oldest first.
func testDuplicates(t *testing.T, s *suite) {
	dc := capability[core.DuplicateChecker](t, s, "core.DuplicateChecker")
	a := s.spec(core.KindStory, "s-1", "Created at the same moment", "", "")
	alone := s.spec(core.KindStory, "s-2", "Created once", "", "")
	first := s.create(t, a, alone)
	dups, err := dc.Duplicates(s.ctx, map[core.Reference]string{a.Reference: first[0], alone.Reference: first[1]})
	if err != nil || len(dups) != 0 {
		t.Fatalf("Duplicates after one create = %v, %v; want none", dups, err)
	}
	second := s.create(t, a)[0]
	for _, key := range []string{second, first[0]} {
		dups, err := dc.Duplicates(s.ctx, map[core.Reference]string{a.Reference: key, alone.Reference: first[1]})
		if err != nil {
			t.Fatal(err)
		}
		if got := dups[a.Reference]; !slices.Equal(got, []string{first[0], second}) || len(dups) != 1 {
			t.Errorf("Duplicates as the holder of %s = %v; want %s held by [%s %s] only", key, dups, a.Reference, first[0], second)
		}
	}
	// Leave the tracker with one issue per reference: the second one
	// takes another reference.
	moved := s.spec(core.KindStory, "s-3", "Created at the same moment", "", "")
	if err := s.Provider.Update(s.ctx, second, moved); err != nil {
		t.Fatalf("Update(%s) to another reference: %v", second, err)
	}
	if dups, err := dc.Duplicates(s.ctx, map[core.Reference]string{a.Reference: first[0]}); err != nil || len(dups) != 0 {
		t.Errorf("Duplicates once %s holds another reference = %v, %v; want none", second, dups, err)
	}
}

// testCheckItems: CheckItems reports a spec exactly when Create would
// refuse it as invalid (VALIDATION_FAILED), naming it; a huge text is the
// case a tracker's limit refuses, whatever the limit is.
func testCheckItems(t *testing.T, s *suite) {
	ic := capability[core.ItemChecker](t, s, "core.ItemChecker")
	fine := s.spec(core.KindStory, "s-1", "An ordinary story", "", "")
	huge := s.spec(core.KindStory, "s-2", "A story with a huge description", "", "")
	var b strings.Builder
	for b.Len() < 200_000 {
		b.WriteString("- one more line of a very long list\n")
	}
	huge.Description = b.String()
	for _, spec := range []core.ItemSpec{fine, huge} {
		details, err := ic.CheckItems(s.ctx, []core.ItemSpec{spec})
		if err != nil {
			t.Fatalf("CheckItems(%s): %v", spec.Reference, err)
		}
		out, err := s.Provider.Create(s.ctx, []core.ItemSpec{spec})
		if err != nil || len(out) != 1 {
			t.Fatalf("Create(%s) = %+v, %v", spec.Reference, out, err)
		}
		refused := core.ErrorCode(out[0].Err) == core.CodeValidationFailed
		if refused != (len(details) > 0) {
			t.Errorf("%s: CheckItems reported %+v but Create's outcome is %v; they must agree", spec.Reference, details, out[0].Err)
		}
		for _, d := range details {
			if d.Item != string(spec.Reference) || d.Message == "" {
				t.Errorf("detail %+v does not name %s and the problem", d, spec.Reference)
			}
		}
	}
}
