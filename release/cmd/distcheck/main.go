// Command distcheck verifies the snapshot release in dist/ (package
// distcheck) and prints the archive sizes:
//
//	go run ./cmd/distcheck -dist ../dist -version 0.1.0-dev+abc1234 -targets ci [-image IMAGE]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/devworkwire/devworkwire/release/distcheck"
)

func main() {
	dist := flag.String("dist", "../dist", "the dist directory GoReleaser wrote")
	version := flag.String("version", "", "the release version (required)")
	targets := flag.String("targets", "full", "which matrix was built: full (6 platforms) or ci (linux/amd64, darwin/arm64)")
	image := flag.String("image", "", "container image to run `version` in (empty: not checked)")
	flag.Parse()
	opts := distcheck.Options{Dist: *dist, Version: *version, Image: *image}
	switch *targets {
	case "full":
		opts.Targets = distcheck.FullTargets
	case "ci":
		opts.Targets = distcheck.CITargets
	default:
		fmt.Fprintf(os.Stderr, "distcheck: -targets %q: use full or ci\n", *targets)
		os.Exit(2)
	}
	if *version == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: distcheck -version VERSION [-dist DIR] [-targets full|ci] [-image IMAGE]")
		os.Exit(2)
	}
	rep, err := distcheck.Check(opts)
	for _, a := range rep.Archives {
		fmt.Printf("%10.1f KiB  %s\n", float64(a.Size)/1024, a.Name)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "distcheck: the release in %s is not right:\n%v\n", *dist, err)
		os.Exit(1)
	}
	fmt.Printf("distcheck: %d archives, checksums, dwire version %s, man pages, completions, Homebrew formula", len(rep.Archives), *version)
	if *image != "" {
		fmt.Printf(", image %s", *image)
	}
	fmt.Println(": ok")
}
