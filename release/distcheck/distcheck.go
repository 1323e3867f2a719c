// Package distcheck verifies what `goreleaser release --snapshot` wrote
// into dist/ (.goreleaser.yaml): every expected archive exists and holds its
// files, checksums.txt lists every archive with its true SHA-256, the
// linux/amd64 dwire is a static binary that prints the release version,
// the man page of `dwire import` is there, the Homebrew formula names the
// version and the archives' checksums, and the image (when given) runs
// `dwire version` and carries the MCP registry's label.
package distcheck

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Target is one GOOS/GOARCH pair.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "_" + t.Arch }

// FullTargets is the release matrix; CITargets is what CI builds.
var (
	FullTargets = []Target{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"}}
	CITargets   = []Target{{"linux", "amd64"}, {"darwin", "arm64"}}
)

// Options says what to check.
type Options struct {
	Dist    string   // the dist directory
	Version string   // the version in the archive names and `dwire version`
	Targets []Target // the platforms that must have archives
	// Image, when set, is the container image to run `version` in (docker).
	Image string
}

// Archive is one checked archive.
type Archive struct {
	Name string
	Size int64
}

// Report is what Check found.
type Report struct {
	Archives []Archive
}

// Contents lists the files every archive of a binary must hold (the binary
// itself without .exe).
var Contents = map[string][]string{
	"dwire": {"dwire", "README.md", "LICENSE", "CHANGELOG.md",
		"man/dwire.1", "man/dwire-import.1", "man/dwire-mcp.1", "man/dwire-version.1",
		"completions/dwire.bash", "completions/_dwire", "completions/dwire.fish", "completions/dwire.ps1"},
	"mockjira": {"mockjira", "README.md", "LICENSE", "CHANGELOG.md", "mockjira.md"},
}

// ArchiveName is the archive of binary for t.
func ArchiveName(binary, version string, t Target) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", binary, version, t.OS, t.Arch, ext)
}

// Check verifies dist and returns the archives it checked. Every problem
// found is in the error, one per line.
func Check(opts Options) (Report, error) {
	var rep Report
	var errs []error
	sums, err := readChecksums(filepath.Join(opts.Dist, "checksums.txt"))
	if err != nil {
		return rep, err
	}
	listed := map[string]bool{}
	for _, bin := range []string{"dwire", "mockjira"} {
		for _, t := range opts.Targets {
			name := ArchiveName(bin, opts.Version, t)
			listed[name] = true
			p := filepath.Join(opts.Dist, name)
			fi, err := os.Stat(p)
			if err != nil {
				errs = append(errs, fmt.Errorf("archive %s is missing: %w", name, err))
				continue
			}
			rep.Archives = append(rep.Archives, Archive{Name: name, Size: fi.Size()})
			if want, ok := sums[name]; !ok {
				errs = append(errs, fmt.Errorf("checksums.txt does not list %s", name))
			} else if got, err := sha256File(p); err != nil {
				errs = append(errs, err)
			} else if got != want {
				errs = append(errs, fmt.Errorf("checksum of %s is %s, checksums.txt says %s", name, got, want))
			}
			files, err := readArchive(p)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				continue
			}
			for _, f := range Contents[bin] {
				if f == bin && t.OS == "windows" {
					f += ".exe"
				}
				if _, ok := files[f]; !ok {
					errs = append(errs, fmt.Errorf("%s does not contain %s", name, f))
				}
			}
			if bin == "dwire" {
				if page, ok := files["man/dwire-import.1"]; ok && !bytes.Contains(page, []byte("dwire-import")) {
					errs = append(errs, fmt.Errorf("%s: man/dwire-import.1 is not the man page of dwire import", name))
				} else if ok && !bytes.Contains(page, []byte("dwire "+opts.Version)) {
					errs = append(errs, fmt.Errorf("%s: man/dwire-import.1 does not name version %s", name, opts.Version))
				}
			}
			if bin == "dwire" && t == (Target{"linux", "amd64"}) {
				if b, ok := files["dwire"]; ok {
					errs = append(errs, checkBinary(b, opts.Version)...)
				}
			}
		}
	}
	for name := range sums {
		if !listed[name] && (strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".zip")) {
			errs = append(errs, fmt.Errorf("checksums.txt lists %s, which is not an expected archive", name))
		}
	}
	errs = append(errs, checkFormula(filepath.Join(opts.Dist, "homebrew", "Formula", "dwire.rb"), opts, sums)...)
	if opts.Image != "" {
		errs = append(errs, checkImage(opts.Image, opts.Version)...)
	}
	sort.Slice(rep.Archives, func(i, j int) bool { return rep.Archives[i].Name < rep.Archives[j].Name })
	return rep, errors.Join(errs...)
}

// checkBinary checks that the linux/amd64 dwire is static and, on a
// linux/amd64 host, that `dwire version` prints version.
func checkBinary(b []byte, version string) []error {
	var errs []error
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return []error{fmt.Errorf("linux/amd64 dwire is not an ELF file: %w", err)}
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			errs = append(errs, errors.New("linux/amd64 dwire is dynamically linked (has an ELF interpreter); the release builds with CGO_ENABLED=0"))
		}
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return append(errs, fmt.Errorf("cannot run the linux/amd64 dwire on %s/%s", runtime.GOOS, runtime.GOARCH))
	}
	dir, err := os.MkdirTemp("", "distcheck")
	if err != nil {
		return append(errs, err)
	}
	defer os.RemoveAll(dir)
	exe := filepath.Join(dir, "dwire")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		return append(errs, err)
	}
	cmd := exec.Command(exe, "version")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir} // nothing of the caller's configuration
	return append(errs, checkVersionOutput("dwire version", cmd, version)...)
}

func checkVersionOutput(what string, cmd *exec.Cmd, version string) []error {
	out, err := cmd.CombinedOutput()
	if err != nil {
		return []error{fmt.Errorf("%s failed: %v\n%s", what, err, out)}
	}
	want := "dwire version " + version + " "
	if !strings.HasPrefix(string(out), want) {
		return []error{fmt.Errorf("%s printed %q, want it to start with %q", what, strings.TrimSpace(string(out)), want)}
	}
	return nil
}

// MCPServerLabel and MCPServerName: the label cli/cmd/dwire/Dockerfile
// gives the image, which the MCP registry checks against server.json
// (mcpserver.ServerName; docs/mcp.md).
const (
	MCPServerLabel = "io.modelcontextprotocol.server.name"
	MCPServerName  = "io.github.devworkwire/devworkwire"
)

func checkImage(image, version string) []error {
	errs := checkVersionOutput("docker run "+image+" version", exec.Command("docker", "run", "--rm", image, "version"), version)
	out, err := exec.Command("docker", "image", "inspect", "--format", `{{ index .Config.Labels "`+MCPServerLabel+`" }}`, image).CombinedOutput()
	if err != nil {
		return append(errs, fmt.Errorf("docker image inspect %s: %v\n%s", image, err, out))
	}
	if got := strings.TrimSpace(string(out)); got != MCPServerName {
		errs = append(errs, fmt.Errorf("image %s has label %s=%q, want %q (cli/cmd/dwire/Dockerfile)", image, MCPServerLabel, got, MCPServerName))
	}
	return errs
}

func checkFormula(path string, opts Options, sums map[string]string) []error {
	b, err := os.ReadFile(path)
	if err != nil {
		return []error{fmt.Errorf("the Homebrew formula is missing: %w", err)}
	}
	var errs []error
	s := string(b)
	if !strings.Contains(s, `version "`+opts.Version+`"`) {
		errs = append(errs, fmt.Errorf("%s does not say version %q", path, opts.Version))
	}
	for _, t := range opts.Targets {
		if t.OS == "windows" {
			continue
		}
		name := ArchiveName("dwire", opts.Version, t)
		if sum := sums[name]; sum == "" || !strings.Contains(s, sum) {
			errs = append(errs, fmt.Errorf("%s does not carry the checksum of %s", path, name))
		}
	}
	for _, want := range []string{`bin.install "dwire"`, "man1.install", "bash_completion.install", "zsh_completion.install", "fish_completion.install"} {
		if !strings.Contains(s, want) {
			errs = append(errs, fmt.Errorf("%s does not %s", path, want))
		}
	}
	return errs
}

func readChecksums(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checksums.txt is missing: %w", err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || len(fields[0]) != 64 {
			return nil, fmt.Errorf("checksums.txt line %d is not \"SHA256  NAME\": %q", n, sc.Text())
		}
		sums[fields[1]] = fields[0]
	}
	return sums, sc.Err()
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readArchive returns the regular files of a .tar.gz or .zip by path.
func readArchive(path string) (map[string][]byte, error) {
	files := map[string][]byte{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, err
			}
			files[f.Name] = b
		}
		return files, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[strings.TrimPrefix(h.Name, "./")] = b
	}
}
