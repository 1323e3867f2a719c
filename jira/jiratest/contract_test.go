package jiratest_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/devworkwire/devworkwire/jira/internal/jiraspec"
	"github.com/devworkwire/devworkwire/jira/jiratest"
)

// contractLog collects every response the fake returns across the test
// suite; each test fails on its own violations, and TestMain reports the
// total.
var contractLog = &jiraspec.Log{}

func TestMain(m *testing.M) {
	code := m.Run()
	checked, skipped := contractLog.Checked()
	if v := contractLog.Violations(); len(v) > 0 {
		fmt.Fprintf(os.Stderr, "OpenAPI contract: %d violations in %d checked responses\n", len(v), checked)
		code = 1
	} else if os.Getenv("JIRATEST_CONTRACT_SUMMARY") != "" {
		fmt.Fprintf(os.Stderr, "OpenAPI contract: 0 violations in %d checked responses (%d skipped: admin or no response)\n", checked, skipped)
	}
	os.Exit(code)
}

// startServer runs a fake behind the contract-checking middleware.
func startServer(t *testing.T, o jiratest.Options) *jiratest.Server {
	t.Helper()
	s := jiratest.New(o)
	local := &jiraspec.Log{}
	h, err := jiraspec.Middleware(s, local, false)
	if err != nil {
		t.Fatal(err)
	}
	both, err := jiraspec.Middleware(h, contractLog, false)
	if err != nil {
		t.Fatal(err)
	}
	// A Data Center site's answers are checked against Atlassian's Data
	// Center description where one is at hand ($JIRASPEC_DC_FILE).
	if o.Deployment == jiratest.DeploymentDataCenter && os.Getenv(jiraspec.DataCenterSpecEnv) != "" {
		if both, err = jiraspec.DataCenterMiddleware(both, local, false); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(both)
	s.URL = ts.URL
	t.Cleanup(func() {
		s.Close()
		ts.Close()
		local.AssertNone(t)
	})
	return s
}

func TestContractCoverage(t *testing.T) {
	// The contract is only meaningful if the middleware sees traffic.
	c := start(t, jiratest.Options{})
	c.do("GET", "/rest/api/3/myself", nil)
	c.do("GET", "/rest/api/3/issue/DEMO-404", nil)
	checked, _ := contractLog.Checked()
	if checked < 2 {
		t.Fatalf("contract middleware checked %d responses, want ≥ 2", checked)
	}
}
