// Package build holds the version of the dwire binary. The release build
// stamps Version with -ldflags (scripts/ldflags.sh); otherwise it is taken
// from the module's build information, never "(devel)".
package build

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Version is set at link time:
//
//	-X github.com/devworkwire/devworkwire/cli/internal/build.Version=v0.1.0
var Version = ""

// fallback is the version used when neither -ldflags nor the module's build
// information give one (e.g. `go run` in the workspace).
const fallback = "0.1.0-dev"

var once sync.Once
var resolved string

// String returns the version of this binary: the stamped Version, else the
// main module's version from `go install …@vX`, else the VCS revision, else
// 0.1.0-dev. It never returns "(devel)".
func String() string {
	once.Do(func() { resolved = resolve(Version, debug.ReadBuildInfo) })
	return resolved
}

func resolve(stamped string, read func() (*debug.BuildInfo, bool)) string {
	if stamped != "" {
		return strings.TrimPrefix(stamped, "v")
	}
	bi, ok := read()
	if !ok {
		return fallback
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return strings.TrimPrefix(v, "v")
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		return fallback + "+" + rev + dirty
	}
	return fallback
}

// GoVersion returns the Go toolchain the binary was built with.
func GoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return ""
}
