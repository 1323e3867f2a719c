package plan

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/goldentest"
	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

// rewriteOpts declares the custom field the test documents use.
var rewriteOpts = Options{CustomFields: []string{"Team"}}

// The changes of the golden tests: a title, fields (rewritten, added
// where a default set them), descriptions (replaced, added, emptied),
// criteria (a box ticked, a text changed, one added, all removed).
var rewriteChanges = []Change{
	{Item: "e-1", Title: ptr("Guest checkout, v2"), Fields: map[string]string{"priority": "Highest"}, Description: ptr("Free Markdown description, edited in Jira.\n\nSecond   paragraph  with  odd   spacing.")},
	{Item: "s-1", Fields: map[string]string{"priority": "Low", "labels": "checkout, web"},
		Criteria: &Criteria{Texts: []string{"A guest can pay with a card", "The confirmation is e-mailed and texted"}, Boxes: []string{BoxDone, BoxTodo}}},
	{Item: "s-2", Criteria: &Criteria{Texts: []string{"One", "Two", "Three"}}, Fields: map[string]string{"fields.Team": "Checkout"}},
	{Item: "s-4", Description: ptr(""), Criteria: &Criteria{}},
}

func TestRewriteGolden(t *testing.T) {
	for _, name := range []string{"checkout.md", "checkout.yaml"} {
		t.Run(name, func(t *testing.T) {
			path := "testdata/rewrite/" + name
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			changes := rewriteChanges
			if strings.HasSuffix(name, ".md") {
				changes = append(changes, Change{Item: "s-3", Description: ptr("Added in Jira.")})
			}
			out, err := rewriteOpts.Rewrite(name, data, changes)
			if err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			goldentest.Check(t, path+".golden", out)
			// What the rewriter does not manage is kept byte for byte.
			for _, keep := range []string{"<!-- a comment nobody manages: keep me -->", "# a comment nobody manages: keep me", "<!-- in the description: kept -->\n", "  * indented list, kept", "Description in Markdown.  \n", "id: checkout-v2   # the document id", "# between the criteria", "Second   paragraph"} {
				if bytes.Contains(data, []byte(keep)) && !bytes.Contains(out, []byte(keep)) {
					t.Errorf("the rewrite lost %q", keep)
				}
			}
			doc, err := rewriteOpts.Parse(name, out)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]Item{}
			for _, it := range append(doc.Items, doc.Subtasks...) {
				byID[it.ID] = it
			}
			if got := byID["e-1"].Title; got != "Guest checkout, v2" {
				t.Errorf("e-1 title %q", got)
			}
			if got := byID["s-1"].Fields.Priority.Value; got != "Low" {
				t.Errorf("s-1 priority %q", got)
			}
			if got := byID["s-1"].CriteriaBoxes; len(got) != 2 || got[0] != BoxDone {
				t.Errorf("s-1 boxes %v", got)
			}
			if got := byID["s-2"].AcceptanceCriteria; len(got) != 3 {
				t.Errorf("s-2 criteria %v", got)
			}
			if got := byID["s-4"]; got.Description != "" || len(got.AcceptanceCriteria) != 0 {
				t.Errorf("s-4 kept description %q / criteria %v", got.Description, got.AcceptanceCriteria)
			}
		})
	}
}

// No change: the document comes back byte for byte, also with CRLF line
// endings and a byte order mark.
func TestRewriteNothingIsIdentity(t *testing.T) {
	data, err := os.ReadFile("testdata/rewrite/checkout.md")
	if err != nil {
		t.Fatal(err)
	}
	crlf := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))...)
	for _, in := range [][]byte{data, crlf} {
		out, err := rewriteOpts.Rewrite("checkout.md", in, []Change{{Item: "s-1", Title: ptr("Pay without an account")}})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, in) {
			t.Errorf("an unchanged rewrite changed the bytes")
		}
	}
	out, err := rewriteOpts.Rewrite("checkout.md", crlf, []Change{{Item: "s-1", Title: ptr("Pay as a guest")}})
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Replace(crlf, []byte("Story s-1: Pay without an account"), []byte("Story s-1: Pay as a guest"), 1); !bytes.Equal(out, want) {
		t.Errorf("CRLF rewrite:\n%q\nwant\n%q", out, want)
	}
}

// RewriteParsed returns Rewrite's text with the document it reads as (the
// one its check parsed), equal to parsing the text again, with CRLF line
// endings and a byte order mark too, in Markdown and YAML: the pull parses
// neither document twice.
func TestRewriteParsedReturnsTheDocument(t *testing.T) {
	data, err := os.ReadFile("testdata/rewrite/checkout.md")
	if err != nil {
		t.Fatal(err)
	}
	crlf := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))...)
	yml := []byte("id: d\nstories:\n  - id: s-1\n    title: Pay\n")
	for name, in := range map[string][]byte{"checkout.md": data, "crlf.md": crlf, "d.yaml": yml} {
		changes := []Change{{Item: "s-1", Title: ptr("Pay as a guest")}}
		out, doc, err := rewriteOpts.RewriteParsed(name, in, changes)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want, err := rewriteOpts.Rewrite(name, in, changes); err != nil || !bytes.Equal(out, want) {
			t.Errorf("%s: RewriteParsed's text differs from Rewrite's (%v)", name, err)
		}
		again, err := rewriteOpts.Parse(name, out)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(doc.Items, func(it Item) bool { return it.ID == "s-1" })
		if d := cmp.Diff(again, doc); d != "" || i < 0 || doc.Items[i].Title != "Pay as a guest" {
			t.Errorf("%s: the returned document differs from the text's (-parsed +returned):\n%s", name, d)
		}
	}
}

// A value that would change how the document reads is refused, naming the
// item, and nothing is returned.
func TestRewriteRefusesWhatWouldReadDifferently(t *testing.T) {
	data := []byte("---\nid: d\n---\n## Story s-1: T\n\nText.\n\n## Story s-2: U\n")
	for _, c := range []Change{
		{Item: "s-9", Title: ptr("x")},
	} {
		out, err := Options{}.Rewrite("d.md", data, []Change{c})
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != CodeValidationFailed || out != nil {
			t.Errorf("change %+v: got %q, %v; want VALIDATION_FAILED", c, out, err)
			continue
		}
		if len(pe.Problems) == 0 || pe.Problems[0].Item == "" {
			t.Errorf("change %+v: the refusal names no item: %+v", c, pe)
		}
	}
}

// A description written around the criteria is refused, not merged.
func TestRewriteRefusesSplitDescription(t *testing.T) {
	data := []byte("---\nid: d\n---\n## Story s-1: T\nBefore.\n\nAcceptance criteria:\n- one\n\nAfter.\n")
	_, err := Options{}.Rewrite("d.md", data, []Change{{Item: "s-1", Description: ptr("New.")}})
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeValidationFailed || !strings.Contains(pe.Message, "several places") {
		t.Fatalf("got %v", err)
	}
}

// checkRewrite rewrites every item of a document that parses (a title, a
// description, one more criterion with a box, a priority): no panic;
// either a *Error, or output that parses and holds the changes.
func checkRewrite(t *testing.T, name string, data []byte) {
	doc, err := Parse(name, data)
	if err != nil {
		return
	}
	var changes []Change
	for _, it := range append(doc.Items, doc.Subtasks...) {
		texts := append(slices.Clone(it.AcceptanceCriteria), "Added by the tracker")
		boxes := make([]string, len(texts))
		boxes[len(boxes)-1] = BoxDone
		changes = append(changes, Change{Item: it.ID, Title: ptr(it.Title + " (renamed)"), Description: ptr("New text\n\nof two paragraphs."),
			Criteria: &Criteria{Texts: texts, Boxes: boxes}, Fields: map[string]string{"priority": "High"}})
	}
	out, err := Options{}.Rewrite(name, data, changes)
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("Rewrite error %T %v is not a *Error", err, err)
		}
		return
	}
	got, err := Parse(name, out)
	if err != nil {
		t.Fatalf("the rewritten document does not parse: %v\n%s", err, out)
	}
	for _, it := range append(got.Items, got.Subtasks...) {
		if !strings.HasSuffix(it.Title, " (renamed)") || it.Fields.Priority.Value != "High" {
			t.Fatalf("item %s not rewritten: %+v\n%s", it.ID, it, out)
		}
	}
}

func FuzzRewrite(f *testing.F) {
	addSeeds(f, ".md")
	f.Add([]byte("## Story s-1: T\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkRewrite(t, "fuzz.md", data) })
}

func FuzzRewriteYAML(f *testing.F) {
	addSeeds(f, ".yaml", ".yml")
	f.Fuzz(func(t *testing.T, data []byte) { checkRewrite(t, "fuzz.yaml", data) })
}

// A description from the tracker that holds lines the format reads as
// structure (an item heading, a criteria label, a marker) is written
// escaped: the document reads back with that description and no item,
// criterion or epic more.
func TestRewriteWritesStructureLikeDescriptionsAsText(t *testing.T) {
	data := []byte("---\nid: d\n---\n## Story s-1: T\n\nText.\n\n## Story s-2: U\n")
	for _, desc := range []string{
		"Text.\n\n## Story s-9: injected",
		"Acceptance criteria:\n- sneaked in",
		"Priority: Highest\nEpic: e-9",
		"#### Sub-task t-9: planted\n\n### Epic e-9: planted",
	} {
		out, err := Options{}.Rewrite("d.md", data, []Change{{Item: "s-1", Description: ptr(desc)}})
		if err != nil {
			t.Fatalf("description %q: %v", desc, err)
		}
		doc, err := Options{}.Parse("d.md", out)
		if err != nil {
			t.Fatalf("description %q: the rewritten document does not parse: %v\n%s", desc, err, out)
		}
		if len(doc.Items) != 2 || len(doc.Subtasks) != 0 || doc.Items[0].Description != desc ||
			len(doc.Items[0].AcceptanceCriteria) != 0 || doc.Items[0].EpicRef != "" || doc.Items[0].Fields.Priority.State != FieldUnset {
			t.Errorf("description %q reads back as %+v\n%s", desc, doc.Items, out)
		}
	}
}
