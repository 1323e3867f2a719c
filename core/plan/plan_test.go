package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMarkdownBasic(t *testing.T) {
	src := "---\nid: checkout-v2\n---\n# Checkout v2\n\n## Epic e-1: Guest checkout\nFree Markdown description.\n\n```\n## Story x: not a heading\n```\n\n### Story s-1: Pay without an account\nDescription.\n\nAcceptance criteria:\n- A guest can pay with a card\n- [ ] The order confirmation is e-mailed\n\n### Story s-2: Save address\nEpic: e-1\nDrift: take-document\n\n## Story s-3: Loose\n"
	got, err := Parse("plan.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{ID: "checkout-v2", Title: "Checkout v2", Items: []Item{
		{ID: "e-1", Kind: KindEpic, Title: "Guest checkout", Description: "Free Markdown description.\n\n```\n## Story x: not a heading\n```", Line: 6},
		{ID: "s-1", Kind: KindStory, Title: "Pay without an account", Description: "Description.", AcceptanceCriteria: []string{"A guest can pay with a card", "The order confirmation is e-mailed"}, Epic: "e-1", Line: 13},
		{ID: "s-2", Kind: KindStory, Title: "Save address", Epic: "e-1", Line: 20, TakeDocument: true},
		{ID: "s-3", Kind: KindStory, Title: "Loose", Line: 24},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", d)
	}
}

func TestParseYAMLBasic(t *testing.T) {
	src := "id: checkout-v2\ntitle: Checkout v2\nepics:\n  - id: e-1\n    title: Guest checkout\n    stories:\n      - id: s-1\n        title: Pay\n        acceptance_criteria: [a, b]\nstories:\n  - id: s-3\n    title: Loose\n    epic: e-1\n    drift: take-document\n"
	got, err := Parse("plan.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{ID: "checkout-v2", Title: "Checkout v2", Items: []Item{
		{ID: "e-1", Kind: KindEpic, Title: "Guest checkout", Line: 4},
		{ID: "s-1", Kind: KindStory, Title: "Pay", AcceptanceCriteria: []string{"a", "b"}, Epic: "e-1", Line: 7},
		{ID: "s-3", Kind: KindStory, Title: "Loose", Epic: "e-1", Line: 11, TakeDocument: true},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", d)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	var pe *Error
	_, err := ReadFile(filepath.Join(dir, "missing.md"))
	if !errors.As(err, &pe) || pe.Code != CodeSourceNotFound {
		t.Fatalf("missing file: got %v, want SOURCE_NOT_FOUND", err)
	}
	_, err = ReadFile(dir)
	if !errors.As(err, &pe) || pe.Code != CodeSourceNotFound || !strings.Contains(pe.Message, "directory") {
		t.Fatalf("directory: got %v, want SOURCE_NOT_FOUND naming a directory", err)
	}
	big := filepath.Join(dir, "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSize + MaxSize/2 + 1<<20/5); err != nil { // sparse: 7.7 MiB, nothing written
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadFile(big)
	if !errors.As(err, &pe) || pe.Code != CodeSourceParseFailed || !strings.Contains(pe.Message, "7.7 MiB; the limit is 5 MiB") {
		t.Fatalf("big file: got %v", err)
	}
	ok := filepath.Join(dir, "ok.md")
	if err := os.WriteFile(ok, []byte("## Story s-1: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(ok)
	if err != nil || string(b) != "## Story s-1: x\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
}
