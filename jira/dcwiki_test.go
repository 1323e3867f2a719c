package jira

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// dcDescription is an issue's description as the Data Center site
// answers it: the wiki markup it keeps.
func dcDescription(t *testing.T, f *fixture, key string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(f.ctx, "GET", f.srv.URL+"/rest/api/2/issue/"+key+"?fields=description", nil)
	req.Header.Set("Authorization", "Bearer "+f.srv.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var is struct {
		Fields struct {
			Description string `json:"description"`
		} `json:"fields"`
	}
	if err := json.NewDecoder(res.Body).Decode(&is); err != nil {
		t.Fatal(err)
	}
	return is.Fields.Description
}

// TestDataCenterPersonsWikiRoundTrip: a Data Center site keeps wiki
// markup as written. A person's description, in forms jira/wiki would
// write differently ("- " lists, no blank line after a heading), is
// pulled into the document; the import of the pulled document is
// unchanged and writes nothing; a change of the title alone leaves the
// person's text as written; a change of the text writes it.
func TestDataCenterPersonsWikiRoundTrip(t *testing.T) {
	doc := "---\nid: dw\n---\n## Story s-1: Pay\n\nPlain text.\n"
	path := t.TempDir() + "/dw.md"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	f := startDataCenter(t, jiratest.Options{}, nil)
	svc := newService(f.p, service.ServiceOptions{})
	commit := func() { t.Helper(); importCommitted(t, f.ctx, svc, service.ImportPreviewInput{Path: path}, "") }
	commit() // the first import
	key := f.srv.Issues()[0].Key
	if d := dcDescription(t, f, key); d != "Plain text." {
		t.Fatalf("imported description %q", d)
	}

	person := "h3. Notes\nWritten in Jira.\n\n- first\n- second"
	if err := f.srv.EditAsPerson(key, jiratest.PersonEdit{DescriptionWiki: &person}); err != nil {
		t.Fatal(err)
	}
	pulled := pullOne(t, f, svc, path)
	if !strings.Contains(string(pulled), "Written in Jira.") || !strings.Contains(string(pulled), "second") {
		t.Fatalf("the pulled document lacks the person's text:\n%s", pulled)
	}
	writes := len(f.srv.Writes())
	again, err := svc.ImportPreview(f.ctx, service.ImportPreviewInput{Path: path})
	if err != nil || again.Counts != (service.Counts{Unchanged: 1}) || len(again.Warnings) != 0 {
		t.Fatalf("the import after the pull: %v %+v %q", err, again.Counts, again.Warnings)
	}
	if n := len(f.srv.Writes()) - writes; n != 0 {
		t.Fatalf("the preview wrote %d times", n)
	}

	if err := os.WriteFile(path, []byte(strings.Replace(string(pulled), "Story s-1: Pay", "Story s-1: Pay now", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	commit() // a new title
	if d := dcDescription(t, f, key); d != person {
		t.Errorf("after a change of the title alone the description reads %q, want the person's %q as written", d, person)
	}

	now, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(now), "Written in Jira.", "Written in Jira, then in the document.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	commit() // a new text
	if d := dcDescription(t, f, key); !strings.Contains(d, "Written in Jira, then in the document.") || d == person {
		t.Errorf("after a change of the text the description reads %q", d)
	}
}
