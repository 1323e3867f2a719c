// Command modproxy writes the workspace's released modules, as they would be
// published at one version (no replace directives, siblings required at
// that version), into a directory usable as GOPROXY=file://DIR:
//
//	go run ./cmd/modproxy -root .. -version v0.1.0 -out /tmp/proxy
//
// scripts/release-check.sh uses it to `go install …/cli/cmd/dwire@v0.1.0`
// with GOWORK=off before anything is tagged. See package modproxy.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/devworkwire/devworkwire/release/modproxy"
)

func main() {
	root := flag.String("root", "..", "repository root")
	version := flag.String("version", "v0.1.0", "the version every module is published at")
	out := flag.String("out", "", "proxy directory to write (required)")
	modules := flag.String("modules", "", "modules to publish, in dependency order (default: the root's MODULES less e2e)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy -out DIR [-root DIR] [-version vX.Y.Z] [-modules 'core jira …']")
		os.Exit(2)
	}
	mods := strings.Fields(*modules)
	if len(mods) == 0 {
		var err error
		if mods, err = modproxy.Released(*root); err != nil {
			fmt.Fprintln(os.Stderr, "modproxy:", err)
			os.Exit(1)
		}
	}
	err := modproxy.Build(modproxy.Options{Root: *root, Modules: mods, Version: *version, Out: *out})
	if err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}
