package jira

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

func TestRefValueRoundTrip(t *testing.T) {
	for _, r := range []core.Reference{"checkout-v2/s-1", "it/a", "to/is", "A/1", "a/1", "x", "running/tasks"} {
		v := refValue(r)
		if got := parseRefValue(v); got != r {
			t.Errorf("parseRefValue(refValue(%q)) = %q", r, got)
		}
		for _, tok := range strings.Fields(v)[1:] {
			if !searchTokenShape(tok) {
				t.Errorf("token %q of %q is not letters and digits ending in a digit", tok, r)
			}
		}
	}
	// Values written before the tokens, or changed by a person, are read
	// as they are.
	for _, v := range []string{"checkout-v2/s-1", "doc/s-1 dw00000000000000000000", "doc/s-1 " + refToken("doc/s-2") + " " + docToken("doc"), ""} {
		if got := parseRefValue(v); string(got) != v {
			t.Errorf("parseRefValue(%q) = %q; want the value itself", v, got)
		}
	}
	if refToken("A/1") == refToken("a/1") {
		t.Error("references differing in case share a token")
	}
}

func searchTokenShape(s string) bool {
	if len(s) < 2 || s[len(s)-1] < '0' || s[len(s)-1] > '9' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// idWords are id parts that Jira's analyser drops (stop words), changes
// (stems) or that are otherwise short.
var idWords = []string{"it", "a", "is", "to", "the", "and", "no", "not", "running", "runs", "run", "tasks", "task", "x", "I", "A", "7", "0", "42"}

// genID draws a valid document or item id (^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$)
// made of analyser-hostile words and random characters.
func genID(t *rapid.T, label string) string {
	return rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(1, 3).Draw(t, "parts")
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(rapid.SampledFrom([]string{"-", ".", "_"}).Draw(t, "sep"))
			}
			if rapid.IntRange(0, 3).Draw(t, "kind") > 0 {
				b.WriteString(rapid.SampledFrom(idWords).Draw(t, "word"))
			} else {
				b.WriteString(rapid.StringMatching(`[A-Za-z0-9][A-Za-z0-9._-]{0,8}`).Draw(t, "random"))
			}
		}
		s := b.String()
		if len(s) > 64 {
			s = s[:64]
		}
		return s
	}).Draw(t, label)
}

// TestLookupFindsEveryReferenceWhateverItsWords creates items with random
// valid references, including stop words ("it", "a", "is", "to"), stemmable
// words ("running", "tasks"), single letters and digits, and checks that a
// Provider that did not create them (no reconcile, no known keys) finds
// each one, by its own issue, over HTTP against the fake (which drops stop
// words and stems like Jira's English analyser).
func TestLookupFindsEveryReferenceWhateverItsWords(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	created := map[core.Reference]string{}
	rapid.Check(t, func(rt *rapid.T) {
		doc := genID(rt, "doc")
		n := rapid.IntRange(1, 4).Draw(rt, "items")
		var specs []core.ItemSpec
		var refs []core.Reference
		seen := map[core.Reference]bool{}
		for i := 0; i < n; i++ {
			r := core.NewReference(doc, genID(rt, "item"))
			if seen[r] {
				continue
			}
			seen[r] = true
			refs = append(refs, r)
			if _, ok := created[r]; !ok {
				specs = append(specs, core.ItemSpec{Reference: r, Kind: core.KindStory, Title: "Item " + string(r), Digest: "d"})
			}
		}
		if len(specs) > 0 {
			out, err := f.p.Create(f.ctx, specs)
			if err != nil {
				rt.Fatalf("Create: %v", err)
			}
			for i, o := range out {
				if o.Err != nil || o.Key == "" {
					rt.Fatalf("Create %s: %+v", specs[i].Reference, o)
				}
				created[specs[i].Reference] = o.Key
			}
		}
		p2, err := New(f.p.cfg)
		if err != nil {
			rt.Fatal(err)
		}
		got, err := p2.Lookup(f.ctx, refs, nil)
		if err != nil {
			rt.Fatalf("Lookup: %v", err)
		}
		for _, r := range refs {
			if got[r].Key != created[r] {
				rt.Fatalf("Lookup(%q) = %q; want %s", r, got[r].Key, created[r])
			}
		}
		if len(got) != len(refs) {
			rt.Fatalf("Lookup returned %d items for %d references: %v", len(got), len(refs), got)
		}
	})
	assertNoDuplicates(t, f.srv)
}

// TestLookupFindsValuesWrittenBeforeTokens: an issue whose reference field
// holds the bare reference (as written before search tokens) is still
// found by a Provider that does not know its key, reads as unchanged (its
// digests still match), and holds the tokens after its next write.
func TestLookupFindsValuesWrittenBeforeTokens(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	specs, out, _, _ := f.createAll(t, "legacy", 3)
	// Rewrite the field the way the code before tokens wrote it (the
	// devworkwire property, with its digests, is left as it was).
	for i, o := range out {
		body, _ := json.Marshal(map[string]any{"fields": map[string]any{jiratest.DefaultFieldID: string(specs[i].Reference)}})
		if err := f.put("/rest/api/3/issue/"+o.Key, body); err != nil {
			t.Fatal(err)
		}
		if is, _ := f.srv.Issue(o.Key); is.RefValue != string(specs[i].Reference) {
			t.Fatalf("%s holds %q; want the bare reference", o.Key, is.RefValue)
		}
	}
	p2 := f.fresh(t)
	var refs []core.Reference
	for _, s := range specs {
		refs = append(refs, s.Reference)
	}
	got, err := p2.Lookup(f.ctx, refs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range specs {
		w := got[s.Reference]
		if w.Key != out[i].Key || w.Reference != s.Reference || w.LastWritten != s.Digest || w.EditedOutside {
			t.Errorf("%s: found %+v; want %s, unchanged (last written %s, not edited outside)", s.Reference, w, out[i].Key, s.Digest)
		}
	}
	// The next write stores the tokens, and the item is still unchanged.
	s := specs[0]
	s.Title += " (edited)"
	s.Digest = core.ContentDigest(s.Kind, s.Title, s.Description, s.AcceptanceCriteria, "")
	if err := p2.Update(f.ctx, out[0].Key, s); err != nil {
		t.Fatal(err)
	}
	if is, _ := f.srv.Issue(out[0].Key); is.RefValue != refValue(s.Reference) {
		t.Errorf("after an update %s holds %q; want %q", out[0].Key, is.RefValue, refValue(s.Reference))
	}
	got, err = p2.Lookup(f.ctx, refs[:1], nil)
	if w := got[s.Reference]; err != nil || w.Key != out[0].Key || w.LastWritten != s.Digest || w.EditedOutside {
		t.Errorf("after the upgrade: %+v, %v", w, err)
	}
}

// put sends a raw PUT to the fake, as another client would.
func (f *fixture) put(path string, body []byte) error {
	req, err := http.NewRequestWithContext(f.ctx, http.MethodPut, f.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", f.srv.AuthHeader())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("PUT %s: %d %s", path, resp.StatusCode, b)
	}
	return nil
}

// TestQueryFindsADocumentOfStopWords: Query by document searches for the
// document's token, so a document id of stop words ("it", "to-a") is found
// too, and another document whose id stems alike ("runs" vs "running") is
// not mixed in.
func TestQueryFindsADocumentOfStopWords(t *testing.T) {
	f := startJira(t, jiratest.Options{}, nil)
	for _, doc := range []string{"it", "to-a", "running", "runs"} {
		f.createAll(t, doc, 2)
	}
	for _, doc := range []string{"it", "to-a", "running", "runs"} {
		items, _, err := f.p.Query(f.ctx, core.Filter{Document: doc, Limit: 10})
		if err != nil || len(items) != 2 {
			t.Errorf("Query(document %q) = %d items, %v; want its 2", doc, len(items), err)
		}
		for _, w := range items {
			if d, _ := w.Reference.Split(); d != doc {
				t.Errorf("Query(document %q) returned %s", doc, w.Reference)
			}
		}
	}
}
