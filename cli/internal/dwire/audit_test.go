package dwire

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/providertest/fakeprovider"
	"github.com/devworkwire/devworkwire/core/service"
)

// dwire log shows who previewed and who confirmed through which channel,
// as which account, and the keys written — at 80 columns and as JSON, and
// filtered; dwire review's commit is recorded with the review channel.
func TestLogShowsWhoConfirmedWhat(t *testing.T) {
	h := newHarness(t)
	h.env["USER"] = "ana"
	handle := dryRunHandle(t, h, "import", "plan.md")
	h.run("y\n", true, "review", handle).expect(t, 0, "Committed: 5 created")
	h.run("y\n", true, "progress", "checkout-v2/s-1", "--status", "done").expect(t, 0)
	r := h.run("", false, "log")
	r.expect(t, 0, "commit finished", "import of checkout-v2 "+handle, "by ana via dwire review", "previewed by ana",
		"Jira account "+fakeprovider.FakeAccount.Name+" ("+fakeprovider.FakeAccount.ID+")", "outcome committed", "keys DEMO-", "via the terminal prompt", "progress of DEMO-")
	for _, l := range strings.Split(r.out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
	r = h.run("", false, "log", "--channel", "review", "--json")
	var res service.AuditResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || res.Returned != 2 || res.Records[0].Event != core.AuditCommitFinished || res.Records[1].Event != core.AuditCommitStarted || len(res.Records[0].Keys) != 5 {
		t.Fatalf("log --channel review --json = %+v, %v\n%s", res, err, r.out)
	}
	h.run("", false, "log", "--channel", "carrier-pigeon").expect(t, 1, "--channel \"carrier-pigeon\" is not a channel")
	h.run("", false, "log", "--since", "yesterday").expect(t, 1, "neither a time")
	h.run("", false, "log", "--document", "nope").expect(t, 0, "No audit records match.")
}

// dwire policy shows the default; set asks at a terminal (no: nothing
// changes), refuses without one, and is recorded in the trail.
func TestPolicySetAsksAndIsRecorded(t *testing.T) {
	h := newHarness(t)
	h.env["USER"] = "lead"
	h.run("", false, "policy").expect(t, 0, "agents: confirm", "the default")
	h.run("", false, "policy", "set", "agents", "ask-person").expect(t, 1, "CONFIRMATION_REQUIRED", "nothing was changed")
	h.run("n\n", true, "policy", "set", "agents", "ask-person").expect(t, 0, "Nothing was changed.")
	h.run("", false, "policy").expect(t, 0, "agents: confirm")
	h.run("", false, "policy", "set", "agents", "yolo").expect(t, 1, `"yolo" is not a gate policy`)
	h.run("y\n", true, "policy", "set", "agents", "ask-person").expect(t, 0, "It becomes ask-person", "agents: ask-person", "set by lead")
	h.run("", false, "log").expect(t, 0, "gate policy set", "by lead", "agents: ask-person (was confirm)")
}
