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
// crash.
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
	target, mode, exists, err := resolve(path)
	if err != nil {
		return pathError("resolve", path, err)
	}
	tmp, err := create(filepath.Dir(target), filepath.Base(target))
	if err != nil {
		return pathError("create a temporary file for", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(name)
		}
	}()
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
	if err := rename(name, target); err != nil {
		return pathError("rename", path, err)
	}
	ok = true
	if dir, err := os.Open(filepath.Dir(target)); err == nil {
		_ = dir.Sync() // the rename itself; some file systems refuse a folder's sync
		_ = dir.Close()
	}
	return nil
}

// resolve follows path's symbolic links to the file to replace, and
// returns its permission bits, or false when it does not exist yet.
func resolve(path string) (string, fs.FileMode, bool, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
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
		link, err := os.Readlink(path)
		if err != nil {
			return "", 0, false, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", 0, false, errors.New("too many levels of symbolic links")
}

// create makes a new temporary file in dir for the file named base, with
// NewFileMode narrowed by the umask (os.CreateTemp's would be 0600).
func create(dir, base string) (*os.File, error) {
	for {
		var b [6]byte
		_, _ = rand.Read(b[:])
		f, err := os.OpenFile(filepath.Join(dir, "."+base+".dwire-"+hex.EncodeToString(b[:])), os.O_RDWR|os.O_CREATE|os.O_EXCL, NewFileMode)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
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
