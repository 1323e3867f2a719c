package build

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	info := func(v string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: v}, Settings: settings}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	tests := []struct {
		name    string
		stamped string
		read    func() (*debug.BuildInfo, bool)
		want    string
	}{
		{"stamped wins", "v1.2.3", info("v9.9.9"), "1.2.3"},
		{"module version", "", info("v0.4.0"), "0.4.0"},
		{"devel never shown", "", info("(devel)"), "0.1.0-dev"},
		{"vcs revision", "", info("(devel)",
			debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef"},
			debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "0.1.0-dev+0123456789ab-dirty"},
		{"no build info", "", none, "0.1.0-dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolve(tt.stamped, tt.read); got != tt.want {
				t.Errorf("resolve() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStringNeverDevel(t *testing.T) {
	if s := String(); s == "" || s == "(devel)" {
		t.Fatalf("String() = %q", s)
	}
}
