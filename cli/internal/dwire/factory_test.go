package dwire

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/core"
)

// TestServiceOptionsSearchLagWindow: search_lag_window reaches
// service.ServiceOptions (the one path for the CLI commands and dwire mcp);
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

// TestServiceOptionsCommitLockLease: DWIRE_COMMIT_LOCK_LEASE (the testing
// knob the e2e pause-past-lease scenario uses) reaches
// service.ServiceOptions; unset leaves core's default; a value that is not a
// duration from 1s to 10m is CONFIG_INVALID naming the variable.
func TestServiceOptionsCommitLockLease(t *testing.T) {
	base := "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n  email: a@example.com\n"
	for in, want := range map[string]time.Duration{"": 0, "3s": 3 * time.Second, " 10m ": 10 * time.Minute, "1s": time.Second} {
		cfg, err := config.Parse("/w/"+config.FileName, []byte(base), func(k string) string {
			if k == config.EnvCommitLockLease {
				return in
			}
			return ""
		})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := serviceOptions(nil, nil, cfg, nil).CommitLockLease; got != want {
			t.Errorf("%q: CommitLockLease = %v, want %v", in, got, want)
		}
	}
	for _, in := range []string{"soon", "0s", "999ms", "11m", "-3s"} {
		_, err := config.Parse("/w/"+config.FileName, []byte(base), func(k string) string {
			if k == config.EnvCommitLockLease {
				return in
			}
			return ""
		})
		var ce *core.Error
		if !errors.As(err, &ce) || ce.Code != core.CodeConfigInvalid || len(ce.Details) != 1 || ce.Details[0].Field != config.EnvCommitLockLease {
			t.Errorf("%q: got %v, want CONFIG_INVALID naming %s", in, err, config.EnvCommitLockLease)
		}
	}
}

// TestJiraConfigIssueTypes: jira.issue_types reaches the adapter,
// the sub-task type included (absent: "", the project's first sub-task
// type).
func TestJiraConfigIssueTypes(t *testing.T) {
	base := "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n  email: a@example.com\n"
	for in, want := range map[string][3]string{
		"": {"Epic", "Story", ""},
		"  issue_types:\n    epic: Initiative\n    story: Feature\n    subtask: \" Sub-task \"\n": {"Initiative", "Feature", "Sub-task"},
	} {
		cfg, err := config.Parse("/w/"+config.FileName, []byte(base+in), func(string) string { return "" })
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		jc := jiraConfig(cfg, "", nil)
		if got := [3]string{jc.EpicType, jc.StoryType, jc.SubtaskType}; got != want {
			t.Errorf("%q: types %q, want %q", in, got, want)
		}
	}
}

// TestOpenStoreKeepsAuditForTheConfiguredRetention: audit_retention in
// .devworkwire.yaml reaches the store's prune on open (the default keeps
// a year).
func TestOpenStoreKeepsAuditForTheConfiguredRetention(t *testing.T) {
	dir := t.TempDir()
	base := "jira:\n  site: https://x.atlassian.net\n  project: PROJ\n  email: a@example.com\nstore: ./state.db\n"
	day := 24 * time.Hour
	for _, c := range []struct {
		line string
		want []string
	}{
		{"", []string{"imp_20", "imp_40"}},
		{"audit_retention: 30d\n", []string{"imp_20"}},
	} {
		cfg, err := config.Parse(filepath.Join(dir, config.FileName), []byte(base+c.line), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(filepath.Join(dir, "state.db"))
		s, err := openStore(t.Context(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		for _, age := range []int{40, 20} {
			if _, err := s.(core.AuditStore).AppendAudit(t.Context(), core.AuditRecord{At: now.Add(-time.Duration(age) * day), Event: core.AuditPreview, Handle: fmt.Sprintf("imp_%d", age)}); err != nil {
				t.Fatal(err)
			}
		}
		_ = s.Close()
		s, err = openStore(t.Context(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, err := s.(core.AuditStore).ListAudit(t.Context(), core.AuditFilter{}, 0)
		_ = s.Close()
		var got []string
		for _, r := range recs {
			got = append(got, r.Handle)
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: the trail after a reopen = %v, %v; want %v", c.line, got, err, c.want)
		}
	}
}
