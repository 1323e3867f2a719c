package dwire

import (
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/cli/internal/config"
)

// TestServiceOptionsSearchLagWindow: search_lag_window reaches
// core.ServiceOptions (the one path for the CLI commands and dwire mcp);
// 0s is kept as "hold nothing back", not turned into core's default.
func TestServiceOptionsSearchLagWindow(t *testing.T) {
	base := "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n  email: a@example.com\n"
	for in, want := range map[string]time.Duration{
		"":                         10 * time.Minute,
		"search_lag_window: 3m\n":  3 * time.Minute,
		"search_lag_window: 24h\n": 24 * time.Hour,
		"search_lag_window: 0s\n":  0,
		"preview_ttl: 1h\n":        10 * time.Minute,
	} {
		cfg, err := config.Parse("/w/"+config.FileName, []byte(base+in), func(string) string { return "" })
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		o := serviceOptions(nil, nil, cfg, nil)
		if o.SearchLagWindow == nil || *o.SearchLagWindow != want {
			t.Errorf("%q: SearchLagWindow = %v, want %v", in, o.SearchLagWindow, want)
		}
		if o.PreviewTTL != cfg.PreviewTTL {
			t.Errorf("%q: PreviewTTL = %v, want %v", in, o.PreviewTTL, cfg.PreviewTTL)
		}
	}
}
