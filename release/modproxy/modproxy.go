// Package modproxy writes the workspace's modules, in the form they would be
// published, into a directory laid out as a Go module proxy
// (GOPROXY=file://DIR): each module's files as `git ls-files` lists them
// (tracked and untracked-but-not-ignored, nested modules left out, as a tag
// would hold them; the repository's LICENSE when the module has none, as
// the go command adds it), with go.mod rewritten the way a release commit writes it:
// no replace directives, every sibling module required at the released
// version. It lets `go install …/cli/cmd/dwire@VERSION` be tried with
// GOWORK=off before anything is tagged or published.
package modproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

// Prefix is the common path of the DevWorkWire modules.
const Prefix = "github.com/devworkwire/devworkwire/"

// Options says what to publish.
type Options struct {
	// Root is the repository root (where go.work is).
	Root string
	// Modules are the directories (and path suffixes) of the modules to
	// publish, e.g. core, jira, cli.
	Modules []string
	// Version is the version every module gets, e.g. v0.1.0.
	Version string
	// Out is the proxy directory to write.
	Out string
	// Time is the time recorded in the .info files (zero: now).
	Time time.Time
}

// Released is the modules a release publishes, in dependency order: the
// repository's MODULES (the list make builds and tests, in that order)
// less e2e, the test suite, which is not released.
func Released(root string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "MODULES"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range strings.Fields(string(b)) {
		if m != "e2e" {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no module to release", filepath.Join(root, "MODULES"))
	}
	return out, nil
}

// Build writes every module of opts into the proxy directory opts.Out.
func Build(opts Options) error {
	if !semver.IsValid(opts.Version) || semver.Canonical(opts.Version) != opts.Version || semver.Build(opts.Version) != "" {
		return fmt.Errorf("version %q is not a canonical release version like v0.1.0", opts.Version)
	}
	if len(opts.Modules) == 0 {
		return fmt.Errorf("no modules to publish")
	}
	when := opts.Time
	if when.IsZero() {
		when = time.Now().UTC()
	}
	siblings := map[string]bool{}
	for _, m := range opts.Modules {
		siblings[Prefix+m] = true
	}
	for _, m := range opts.Modules {
		if err := publish(opts, m, siblings, when); err != nil {
			return fmt.Errorf("module %s: %w", m, err)
		}
	}
	return nil
}

// PublishedGoMod rewrites a module's go.mod as the release commit does: the
// replace directives of sibling modules dropped and every sibling required
// at version. A replace of anything else is an error (it would not reach
// consumers). It returns the formatted file.
func PublishedGoMod(data []byte, siblings map[string]bool, version string) ([]byte, error) {
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range f.Replace {
		if !siblings[r.Old.Path] {
			return nil, fmt.Errorf("go.mod replaces %s, which is not a sibling module: a published module cannot carry that replacement", r.Old.Path)
		}
		if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
			return nil, err
		}
	}
	for _, r := range f.Require {
		if siblings[r.Mod.Path] {
			if err := f.AddRequire(r.Mod.Path, version); err != nil {
				return nil, err
			}
		}
	}
	f.Cleanup()
	return f.Format()
}

func publish(opts Options, m string, siblings map[string]bool, when time.Time) error {
	dir := filepath.Join(opts.Root, m)
	goModPath := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(goModPath)
	if err != nil {
		return err
	}
	if got := modfile.ModulePath(data); got != Prefix+m {
		return fmt.Errorf("%s declares module %q, want %q", goModPath, got, Prefix+m)
	}
	gomod, err := PublishedGoMod(data, siblings, opts.Version)
	if err != nil {
		return err
	}
	names, err := moduleFiles(opts.Root, m)
	if err != nil {
		return err
	}
	var files []modzip.File
	if !slices.Contains(names, "LICENSE") {
		// As the go command does when it fetches a module in a subdirectory
		// (and zip.CreateFromVCS): the repository root's LICENSE goes in.
		p := filepath.Join(opts.Root, "LICENSE")
		if info, err := os.Lstat(p); err == nil {
			files = append(files, diskFile{name: "LICENSE", path: p, info: info})
		}
	}
	for _, name := range names {
		if name == "go.mod" {
			files = append(files, dataFile{name: name, data: gomod})
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(name))
		info, err := os.Lstat(full)
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the working tree, not yet in the index
			}
			return err
		}
		files = append(files, diskFile{name: name, path: full, info: info})
	}

	mv := module.Version{Path: Prefix + m, Version: opts.Version}
	esc, err := module.EscapePath(mv.Path)
	if err != nil {
		return err
	}
	vdir := filepath.Join(opts.Out, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	var zbuf bytes.Buffer
	if err := modzip.Create(&zbuf, mv, files); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    string
	}{opts.Version, when.Format(time.RFC3339)})
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{
		opts.Version + ".zip":  zbuf.Bytes(),
		opts.Version + ".mod":  gomod,
		opts.Version + ".info": info,
		"list":                 []byte(opts.Version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(vdir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// moduleFiles lists the module's files relative to its directory, in
// slash form: what git would put in a tag (tracked, plus untracked files
// that are not ignored), without nested modules.
func moduleFiles(root, m string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", m)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files %s: %v: %s", m, err, strings.TrimSpace(stderr.String()))
	}
	var all []string
	nested := map[string]bool{} // directories (relative to the module) holding another go.mod
	seen := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		rel := strings.TrimPrefix(p, m+"/")
		if rel == p {
			continue
		}
		if path.Base(rel) == "go.mod" && rel != "go.mod" {
			nested[path.Dir(rel)] = true
		}
		all = append(all, rel)
	}
	var files []string
	for _, rel := range all {
		if inNested(rel, nested) {
			continue
		}
		files = append(files, rel)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("git lists no files under %s", m)
	}
	return files, nil
}

func inNested(rel string, nested map[string]bool) bool {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if nested[d] {
			return true
		}
	}
	return false
}

type diskFile struct {
	name, path string
	info       fs.FileInfo
}

func (f diskFile) Path() string                 { return f.name }
func (f diskFile) Lstat() (fs.FileInfo, error)  { return f.info, nil }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

type dataFile struct {
	name string
	data []byte
}

func (f dataFile) Path() string                 { return f.name }
func (f dataFile) Lstat() (fs.FileInfo, error)  { return dataInfo{f}, nil }
func (f dataFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type dataInfo struct{ f dataFile }

func (i dataInfo) Name() string       { return path.Base(i.f.name) }
func (i dataInfo) Size() int64        { return int64(len(i.f.data)) }
func (i dataInfo) Mode() fs.FileMode  { return 0o644 }
func (i dataInfo) ModTime() time.Time { return time.Time{} }
func (i dataInfo) IsDir() bool        { return false }
func (i dataInfo) Sys() any           { return nil }
