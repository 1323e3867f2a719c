package config

import (
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

func TestParseMaxInFlight(t *testing.T) {
	for in, want := range map[string]int{"": 0, "  max_in_flight: 1\n": 1, "  max_in_flight: 16\n": 16, "  max_in_flight: 64\n": 64} {
		c, err := Parse("/w/.devworkwire.yaml", []byte(good+in), env(nil))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if c.MaxInFlight != want {
			t.Errorf("%q → MaxInFlight %d, want %d", in, c.MaxInFlight, want)
		}
	}
	for _, in := range []string{"-1", "65"} {
		_, err := Parse("/w/.devworkwire.yaml", []byte(good+"  max_in_flight: "+in+"\n"), env(nil))
		e := core.AsError(err)
		if e == nil || e.Code != core.CodeConfigInvalid || len(e.Details) != 1 || e.Details[0].Field != "jira.max_in_flight" ||
			!strings.Contains(e.Message, "1 (one request at a time) to 64") {
			t.Errorf("max_in_flight %s: got %v, want CONFIG_INVALID naming jira.max_in_flight and the range", in, err)
		}
	}
	_, err := Parse("/w/.devworkwire.yaml", []byte(good+"  max_in_flight: many\n"), env(nil))
	if e := core.AsError(err); e == nil || e.Code != core.CodeConfigInvalid {
		t.Errorf("max_in_flight: many: got %v, want CONFIG_INVALID", err)
	}
}
