package jira

import (
	"net/http"
	"testing"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// Account names the account of the credentials (GET myself: its id and
// display name, not its e-mail address), read once per Provider.
func TestAccountIsReadOnceFromMyself(t *testing.T) {
	_, p := startBehind(t, jiratest.Options{DisplayName: "Ana Lima"}, func(f *jiratest.Server) http.Handler { return f }, nil)
	for range 2 {
		a, err := p.Account(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if a.ID != jiratest.DemoAccountID || a.Name != "Ana Lima" {
			t.Errorf("Account = %+v; want %s, Ana Lima", a, jiratest.DemoAccountID)
		}
	}
	if n := p.Stats().ByEndpoint["GET /rest/api/3/myself"]; n != 1 {
		t.Errorf("GET myself sent %d times; want once", n)
	}
}
