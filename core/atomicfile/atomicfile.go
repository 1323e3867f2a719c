// Package atomicfile replaces a file's content all at once: a reader sees
// the old content or the new one, never part of either, and a failure
// leaves the old file as it was with no temporary file behind. The pull
// (core) and the export's --force (the CLI) write documents with it.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// NewFileMode is the mode a file Write creates gets, before the process's
// umask narrows it (as os.OpenFile applies it): readable by everyone,
// writable by its owner — what the export writes a new document with too.
const NewFileMode fs.FileMode = 0o644

// maxLinks bounds the symbolic links followed to the file (as the
// kernel's own limit of 40).
const maxLinks = 40

// Test seams: a test makes the sync or the rename fail.
var (
	syncFile = (*os.File).Sync
	rename   = os.Rename
)

// Write replaces the content of the file at path with data: data goes to
// a temporary file next to the file (".<name>.dwire-<random>"), which is
// synced and renamed over it; the folder is synced after the rename (best
// effort: not every file system can), so the new content survives a
// crash. A temporary file a write of the same file left behind (its
// process was killed before the rename) is removed: the temporary file is
// locked while it is written (an advisory lock, which the kernel drops
// when its process ends), and one nobody holds is abandoned; where the
// system has no such locks, one older than an hour is.
//   - An existing file keeps its permission bits (set on the temporary
//     file before any byte is written).
//   - A symbolic link is followed (links to links too): its target is
//     replaced and the link stays; a link to a file that does not exist
//     creates that file.
//   - A file that does not exist yet is created with NewFileMode narrowed
//     by the umask.
//
// The error is an *fs.PathError naming path, whose Err is the operating
// system's reason (errors.Is(err, fs.ErrNotExist) for a missing folder).
func Write(path string, data []byte) error {
	return write(osFiles, path, data)
}

// WriteWithin is Write confined to the folder dir: every step (following
// the links, the temporary file, the rename) goes through an os.Root of
// dir, so a path — or a folder on the way, or a link — that leads out of
// dir, even one swapped in while the write runs, is refused and nothing
// is written outside. path is absolute and inside dir, or relative to it;
// a symbolic link is followed only within dir (an absolute one naming a
// place inside dir too). The MCP server's pull writes documents with it.
func WriteWithin(dir, path string, data []byte) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return pathError("open the folder of", path, err)
	}
	name := path
	if filepath.IsAbs(path) {
		if name, err = filepath.Rel(real, path); err != nil {
			name = path
		}
	}
	if !filepath.IsLocal(name) {
		return pathError("resolve", path, ErrOutside)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return pathError("open the folder of", path, err)
	}
	defer root.Close()
	return write(rootFiles(root, real), name, data)
}

// ErrOutside is WriteWithin's reason for a path or link that leads out
// of its folder.
var ErrOutside = errors.New("it is outside the folder it must be written in")

// files are the file system operations a write makes: the os package's,
// or an os.Root's.
type files struct {
	lstat    func(string) (fs.FileInfo, error)
	readlink func(string) (string, error)
	openFile func(string, int, fs.FileMode) (*os.File, error)
	rename   func(string, string) error
	remove   func(string) error
	open     func(string) (*os.File, error)
	// local turns a link's absolute target into a name for these
	// operations (false: not one they can reach).
	local func(string) (string, bool)
}

var osFiles = files{lstat: os.Lstat, readlink: os.Readlink, openFile: os.OpenFile,
	rename: func(a, b string) error { return rename(a, b) }, remove: os.Remove, open: os.Open,
	local: func(p string) (string, bool) { return p, true }}

func rootFiles(r *os.Root, dir string) files {
	return files{lstat: r.Lstat, readlink: r.Readlink, openFile: r.OpenFile, rename: r.Rename, remove: r.Remove, open: r.Open,
		local: func(p string) (string, bool) {
			rel, err := filepath.Rel(dir, p)
			return rel, err == nil && filepath.IsLocal(rel)
		}}
}

// beforeCreate is a test seam: it runs once the file is resolved, before
// the temporary file is made (a test swaps a folder for a link there).
var beforeCreate = func() {}

func write(f files, path string, data []byte) error {
	target, mode, exists, err := resolve(f, path)
	if err != nil {
		return pathError("resolve", path, err)
	}
	beforeCreate()
	dir, base := filepath.Dir(target), filepath.Base(target)
	tmp, name, err := create(f, dir, base)
	if err != nil {
		return pathError("create a temporary file for", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = f.remove(name)
		}
	}()
	sweep(f, dir, base, name)
	if exists {
		if err := tmp.Chmod(mode); err != nil {
			return pathError("chmod", path, err)
		}
	}
	if _, err := tmp.Write(data); err != nil {
		return pathError("write", path, err)
	}
	if err := syncFile(tmp); err != nil {
		return pathError("sync", path, err)
	}
	if err := tmp.Close(); err != nil {
		return pathError("close", path, err)
	}
	if err := f.rename(name, target); err != nil {
		return pathError("rename", path, err)
	}
	ok = true
	if dir, err := f.open(filepath.Dir(target)); err == nil {
		_ = dir.Sync() // the rename itself; some file systems refuse a folder's sync
		_ = dir.Close()
	}
	return nil
}

// resolve follows path's symbolic links to the file to replace, and
// returns its permission bits, or false when it does not exist yet.
func resolve(f files, path string) (string, fs.FileMode, bool, error) {
	for range maxLinks {
		fi, err := f.lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return path, 0, false, nil
		case err != nil:
			return "", 0, false, err
		case fi.Mode()&fs.ModeSymlink == 0:
			if !fi.Mode().IsRegular() {
				return "", 0, false, errors.New("not a regular file")
			}
			return path, fi.Mode().Perm(), true, nil
		}
		link, err := f.readlink(path)
		if err != nil {
			return "", 0, false, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		} else if l, ok := f.local(link); ok {
			link = l
		} else {
			return "", 0, false, ErrOutside
		}
		path = link
	}
	return "", 0, false, errors.New("too many levels of symbolic links")
}

// create makes a new temporary file in dir for the file named base, with
// NewFileMode narrowed by the umask (os.CreateTemp's would be 0600), and
// locks it (so another write's sweep leaves it alone).
func create(f files, dir, base string) (*os.File, string, error) {
	for {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, tempPrefix(base)+hex.EncodeToString(b[:]))
		tmp, err := f.openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, NewFileMode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, name, err
		}
		lock(tmp)
		// Another write's sweep may have taken the name between the
		// create and the lock: then make another.
		if fi, err := f.lstat(name); err == nil {
			if mine, err := tmp.Stat(); err == nil && os.SameFile(fi, mine) {
				return tmp, name, nil
			}
		}
		_ = tmp.Close()
	}
}

// tempPrefix is how the names of base's temporary files start.
func tempPrefix(base string) string { return "." + base + ".dwire-" }

// sweep removes the temporary files in dir that writes of base left
// behind (killed before their rename), except keep (this write's own).
// Best effort: a file it cannot read or remove is left.
func sweep(f files, dir, base, keep string) {
	d, err := f.open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	_ = d.Close()
	prefix := tempPrefix(base)
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, prefix)
		if !ok || len(rest) != 12 || strings.Trim(rest, "0123456789abcdef") != "" {
			continue
		}
		name := filepath.Join(dir, n)
		if name == keep {
			continue
		}
		fi, err := f.lstat(name)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		tmp, err := f.openFile(name, os.O_RDONLY, 0)
		if err != nil {
			continue
		}
		if abandoned(tmp, fi.ModTime()) {
			if now, err := f.lstat(name); err == nil && os.SameFile(fi, now) {
				_ = f.remove(name)
			}
		}
		_ = tmp.Close()
	}
}

// pathError is err as an *fs.PathError for path, with the operating
// system's reason alone inside (not another error naming a path).
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}
