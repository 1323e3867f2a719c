package jiratest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// A fake site with a bulk-create call whose write is applied but whose
// response is lost — the situation in which a client must search before it
// retries.
func Example() {
	srv := jiratest.New(jiratest.Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	srv.URL = ts.URL
	_ = srv.AddFault(jiratest.Fault{Method: "POST", Path: "/rest/api/3/issue/bulk", Call: 1, Kind: jiratest.FaultDropAfterApply})

	body := `{"issueUpdates":[{"fields":{"project":{"key":"DEMO"},"issuetype":{"name":"Epic"},"summary":"Guest checkout","customfield_10050":"checkout-v2/e-1"}}]}`
	req, _ := http.NewRequest("POST", ts.URL+"/rest/api/3/issue/bulk", strings.NewReader(body))
	req.Header.Set("Authorization", srv.AuthHeader())
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	fmt.Println("response received:", err == nil)
	for _, iss := range srv.Issues() {
		fmt.Println(iss.Key, iss.IssueType, iss.Reference)
	}
	fmt.Println("writes logged:", len(srv.Writes()))
	// Output:
	// response received: false
	// DEMO-1 Epic checkout-v2/e-1
	// writes logged: 1
}
