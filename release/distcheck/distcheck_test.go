package distcheck

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

const version = "0.1.0-dev+abc1234"

var (
	fakeOnce sync.Once
	fakeBin  []byte
	fakeErr  error
)

// fakeDwire is a static linux binary that prints "dwire version <v> (go…)"
// with the version given at link time.
func fakeDwire(t *testing.T) []byte {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the check runs the linux/amd64 binary")
	}
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fakedwire")
		if err != nil {
			fakeErr = err
			return
		}
		defer os.RemoveAll(dir)
		src := "package main\n\nimport \"fmt\"\n\nvar v = \"unset\"\n\nfunc main() { fmt.Printf(\"dwire version %s (go1.26)\\n\", v) }\n"
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
			fakeErr = err
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module fakedwire\n\ngo 1.26\n"), 0o644); err != nil {
			fakeErr = err
			return
		}
		cmd := exec.Command("go", "build", "-ldflags", "-X main.v="+version, "-o", "dwire", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			fakeErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		fakeBin, fakeErr = os.ReadFile(filepath.Join(dir, "dwire"))
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

// dist is a synthetic dist/: archive name → files.
type dist struct {
	archives map[string]map[string][]byte
	formula  string // "" = none
	extraSum string // an additional checksums.txt line
	badSum   string // archive whose listed checksum is wrong
}

func goodDist(t *testing.T) *dist {
	d := &dist{archives: map[string]map[string][]byte{}}
	for _, tg := range CITargets {
		for bin, names := range Contents {
			files := map[string][]byte{}
			for _, n := range names {
				files[n] = []byte("content of " + n)
			}
			if bin == "dwire" {
				files["man/dwire-import.1"] = []byte(".TH \"DWIRE\" \"1\" \"Dec 2026\" \"dwire " + version + "\"\n.SH NAME\ndwire-import - Preview\n")
				if tg == (Target{"linux", "amd64"}) {
					files["dwire"] = fakeDwire(t)
				}
			}
			d.archives[ArchiveName(bin, version, tg)] = files
		}
	}
	d.formula = "class Dwire < Formula\n  version \"" + version + "\"\n  bin.install \"dwire\"\n  bash_completion.install x\n  zsh_completion.install x\n  fish_completion.install x\n  man1.install x\n"
	return d
}

func (d *dist) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var sums strings.Builder
	for name, files := range d.archives {
		var buf bytes.Buffer
		if strings.HasSuffix(name, ".zip") {
			zw := zip.NewWriter(&buf)
			for n, b := range files {
				w, err := zw.Create(n)
				if err != nil {
					t.Fatal(err)
				}
				w.Write(b)
			}
			zw.Close()
		} else {
			gz := gzip.NewWriter(&buf)
			tw := tar.NewWriter(gz)
			for n, b := range files {
				tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg})
				tw.Write(b)
			}
			tw.Close()
			gz.Close()
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(buf.Bytes())
		hexSum := hex.EncodeToString(sum[:])
		if name == d.badSum {
			hexSum = strings.Repeat("0", 64)
		}
		fmt.Fprintf(&sums, "%s  %s\n", hexSum, name)
		if d.formula != "" && strings.HasPrefix(name, "dwire_") {
			d.formula += "  sha256 \"" + hexSum + "\"\n"
		}
	}
	sums.WriteString(d.extraSum)
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if d.formula != "" {
		p := filepath.Join(dir, "homebrew", "Formula", "dwire.rb")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(d.formula), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckPassesAGoodRelease(t *testing.T) {
	dir := goodDist(t).write(t)
	rep, err := Check(Options{Dist: dir, Version: version, Targets: CITargets})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if len(rep.Archives) != 4 {
		t.Errorf("checked %d archives, want 4: %v", len(rep.Archives), rep.Archives)
	}
	for _, a := range rep.Archives {
		if a.Size <= 0 {
			t.Errorf("%s: size %d", a.Name, a.Size)
		}
	}
}

func TestCheckFindsWhatIsWrong(t *testing.T) {
	linux := ArchiveName("dwire", version, Target{"linux", "amd64"})
	darwin := ArchiveName("dwire", version, Target{"darwin", "arm64"})
	tests := []struct {
		name   string
		mutate func(d *dist)
		opts   func(o *Options)
		want   string
	}{
		{"a missing man page", func(d *dist) { delete(d.archives[darwin], "man/dwire-import.1") }, nil, darwin + " does not contain man/dwire-import.1"},
		{"a missing completion", func(d *dist) { delete(d.archives[linux], "completions/dwire.ps1") }, nil, linux + " does not contain completions/dwire.ps1"},
		{"a missing LICENSE", func(d *dist) {
			delete(d.archives[ArchiveName("mockjira", version, Target{"darwin", "arm64"})], "LICENSE")
		}, nil, "does not contain LICENSE"},
		{"a missing archive", func(d *dist) { delete(d.archives, darwin) }, nil, "archive " + darwin + " is missing"},
		{"a wrong checksum", func(d *dist) { d.badSum = linux }, nil, "checksum of " + linux + " is"},
		{"an unexpected archive in checksums.txt", func(d *dist) {
			d.extraSum = strings.Repeat("1", 64) + "  dwire_" + version + "_plan9_386.tar.gz\n"
		}, nil, "which is not an expected archive"},
		{"a man page of another version", func(d *dist) {
			d.archives[linux]["man/dwire-import.1"] = []byte(".TH \"DWIRE\" \"1\" \"\" \"dwire 0.0.9\"\ndwire-import\n")
		}, nil, "man/dwire-import.1 does not name version " + version},
		{"a binary of another version", nil, func(o *Options) { o.Version = "9.9.9" }, "archive dwire_9.9.9_linux_amd64.tar.gz is missing"},
		{"a binary that is not an executable", func(d *dist) { d.archives[linux]["dwire"] = []byte("#!/bin/sh\n") }, nil, "linux/amd64 dwire is not an ELF file"},
		{"no Homebrew formula", func(d *dist) { d.formula = "" }, nil, "the Homebrew formula is missing"},
		{"a formula of another version", func(d *dist) { d.formula = strings.Replace(d.formula, version, "0.0.9", 1) }, nil, "does not say version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := goodDist(t)
			if tt.mutate != nil {
				tt.mutate(d)
			}
			opts := Options{Dist: d.write(t), Version: version, Targets: CITargets}
			if tt.opts != nil {
				tt.opts(&opts)
			}
			_, err := Check(opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestCheckRunsTheBinary(t *testing.T) {
	errs := checkBinary(fakeDwire(t), "0.2.0")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `want it to start with "dwire version 0.2.0 "`) {
		t.Errorf("checkBinary of a binary that says %s, want 0.2.0: %v", version, errs)
	}
	if errs := checkBinary(fakeDwire(t), version); len(errs) != 0 {
		t.Errorf("checkBinary: %v", errs)
	}
}
