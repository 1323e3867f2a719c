package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// A set is several planning documents imported together: every planning
// document of a directory, recursively (ReadDir), parsed and checked as
// one (ParseSet). Within a set a story may name an epic of another of its
// documents ("Epic: infra-q1/e-1").
//
// What ReadDir skips, each listed in Skipped with the reason:
//   - hidden files and directories (a name starting with "."; not
//     descended into), such as .git or .devworkwire.yaml;
//   - files without a planning-document extension (.md, .markdown, .yaml,
//     .yml);
//   - symbolic links (not followed: a set holds only what is inside the
//     directory) and anything else that is not a regular file or a
//     directory;
//
// and ParseSet also skips a file that is not a planning document at all
// (Error.NotPlan: no epic or story and no document id, such as a
// README.md next to the plans).

// MaxSetFiles is the most planning documents a set holds.
const MaxSetFiles = 500

// SetFile is one planning document of a set, as read.
type SetFile struct {
	// Path is the file's path: the directory given to ReadDir joined with
	// Name's path within it.
	Path string
	// Name is how messages name the file: the directory's base name and
	// the path inside it, slash-separated ("plans/team/infra.md").
	Name string
	Data []byte
}

// Skipped is a file or directory of a set's directory that is not read as
// a planning document.
type Skipped struct {
	Name string // as SetFile.Name; a directory ends in "/"
	Why  string // hidden, not a planning-document extension, …
}

// Why a file was skipped.
const (
	SkipHidden    = "hidden"
	SkipExtension = "not a .md, .markdown, .yaml or .yml file"
	SkipSymlink   = "a symbolic link, not followed"
	SkipIrregular = "not a regular file"
	SkipNotPlan   = "no epics, stories or document id: not a planning document"
)

// ReadDir reads every planning document under dir (recursively, in path
// order) with ReadFile's checks, and lists what it skipped (see the
// package's comment on sets). A dir that does not exist or is not a
// directory is SOURCE_NOT_FOUND; so is a directory without any planning
// document (naming what was skipped), and one with more than MaxSetFiles.
func ReadDir(dir string) ([]SetFile, []Skipped, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, nil, notFound(dir, err)
	}
	if !fi.IsDir() {
		return nil, nil, &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s is not a directory", dir)}
	}
	base := filepath.Base(filepath.Clean(dir))
	name := func(rel string) string { return path.Join(base, filepath.ToSlash(rel)) }
	var files []SetFile
	var skipped []Skipped
	werr := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, rerr := filepath.Rel(dir, p)
		if rerr != nil {
			return rerr
		}
		if err != nil {
			return &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s could not be read (%s); check its permissions", name(rel), core.FSReason(err))}
		}
		if rel == "." {
			return nil
		}
		hidden := strings.HasPrefix(d.Name(), ".")
		switch t := d.Type(); {
		case d.IsDir() && hidden:
			skipped = append(skipped, Skipped{Name: name(rel) + "/", Why: SkipHidden})
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case hidden:
			skipped = append(skipped, Skipped{Name: name(rel), Why: SkipHidden})
		case t&fs.ModeSymlink != 0:
			skipped = append(skipped, Skipped{Name: name(rel), Why: SkipSymlink})
		case formatOf(p) == formatUnknown:
			skipped = append(skipped, Skipped{Name: name(rel), Why: SkipExtension})
		case !t.IsRegular():
			skipped = append(skipped, Skipped{Name: name(rel), Why: SkipIrregular})
		default:
			if len(files) == MaxSetFiles {
				return &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s holds more than %d planning documents; import a smaller directory (one per team or quarter)", base, MaxSetFiles)}
			}
			data, err := ReadFile(p)
			if err != nil {
				var pe *Error
				if errors.As(err, &pe) {
					pe.Problems = append(pe.Problems, Problem{File: name(rel), Line: pe.Line, Message: pe.Message})
				}
				return err
			}
			files = append(files, SetFile{Path: p, Name: name(rel), Data: data})
		}
		return nil
	})
	if werr != nil {
		var pe *Error
		if errors.As(werr, &pe) {
			return nil, nil, pe
		}
		return nil, nil, &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s could not be read (%s)", dir, core.FSReason(werr))}
	}
	if len(files) == 0 {
		return nil, skipped, noDocuments(base, skipped)
	}
	return files, skipped, nil
}

func noDocuments(base string, skipped []Skipped) *Error {
	e := &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s holds no planning document: no .md, .markdown, .yaml or .yml file with epics or stories (hidden files and directories are skipped). Add a plan to it, or give the path of a document", base)}
	if len(skipped) > 0 {
		e.Message = fmt.Sprintf("%s holds no planning document: no .md, .markdown, .yaml or .yml file with epics or stories; %d entries were skipped (see details). Add a plan to it, or give the path of a document", base, len(skipped))
	}
	for _, s := range skipped {
		e.Problems = append(e.Problems, Problem{File: s.Name, Message: "skipped: " + s.Why})
	}
	return e
}

// Set is a parsed, valid set of planning documents.
type Set struct {
	// Documents are the set's documents, in the order of Files.
	Documents []*Document
	// Files are the documents' files (Files[i] holds Documents[i]).
	Files []SetFile
	// Skipped are the entries skipped: those given to ParseSet, then the
	// files that are not planning documents.
	Skipped []Skipped
	// External are the stories' epic references into documents that are
	// not in the set: the caller checks that the tracker holds them.
	External []ExternalEpic
}

// ExternalEpic is a story's epic reference into a document outside its
// set.
type ExternalEpic struct {
	Reference string // "<document id>/<epic id>"
	File      string // the story's file (SetFile.Name)
	Document  string // the story's document id
	Item      string // the story's id
	Line      int    // the Epic: line
}

// ParseSet parses and validates files as one set (skipped are what
// ReadDir skipped, kept in Set.Skipped): each file as Parse
// does (named by its Name), then across the files: two documents with one
// id are a problem naming both files, and so are two items of different
// documents adopting one issue (Key: lines) and a story naming an epic
// reference into a document of the set that does not define that epic. A
// file that is not a planning document (Error.NotPlan) is skipped. The
// error is a *Error listing every problem of every file, each with its
// File: VALIDATION_FAILED, or SOURCE_PARSE_FAILED when a file cannot be
// read as a document at all; SOURCE_NOT_FOUND when no file is a plan.
// With a VALIDATION_FAILED or SOURCE_PARSE_FAILED error the Set is
// returned too, holding what can still be checked further: each
// document's items that parsed (Options.ParseChecked), one document per
// id.
func (o Options) ParseSet(files []SetFile, skipped ...Skipped) (*Set, error) {
	set := &Set{Skipped: slices.Clone(skipped)}
	var problems []Problem
	unlisted := 0 // problems found but not listed (past MaxProblems)
	code := CodeValidationFailed
	for _, f := range files {
		doc, err := o.ParseChecked(f.Name, f.Data)
		var pe *Error
		if doc != nil && err != nil {
			// Its items that parsed are checked across the set too.
			set.Documents = append(set.Documents, doc)
			set.Files = append(set.Files, f)
		}
		switch {
		case errors.As(err, &pe) && pe.NotPlan:
			set.Skipped = append(set.Skipped, Skipped{Name: f.Name, Why: SkipNotPlan})
		case errors.As(err, &pe):
			if pe.Code != CodeValidationFailed {
				code = pe.Code // a file that cannot be read as a document at all
			}
			if len(pe.Problems) == 0 {
				problems = append(problems, Problem{File: f.Name, Line: pe.Line, Message: pe.Message})
			}
			listed := pe.Problems
			if pe.Unlisted > 0 && len(listed) > 0 { // its "N more" entry: counted below
				listed = listed[:len(listed)-1]
			}
			for _, p := range listed {
				if len(problems) >= MaxProblems {
					unlisted++
					continue
				}
				p.File = f.Name
				problems = append(problems, p)
			}
			unlisted += pe.Unlisted
		case err != nil:
			return nil, err
		default:
			set.Documents = append(set.Documents, doc)
			set.Files = append(set.Files, f)
		}
	}
	if len(problems) == 0 && len(set.Documents) == 0 {
		base := "The directory"
		if len(files) > 0 {
			base, _, _ = strings.Cut(files[0].Name, "/")
		}
		return nil, noDocuments(base, set.Skipped)
	}
	// Across the documents: ids, and epic references between them.
	byID := map[string]int{}
	for i, doc := range set.Documents {
		if j, dup := byID[doc.ID]; dup {
			problems = append(problems, Problem{File: set.Files[i].Name, Field: "id", Message: fmt.Sprintf("%s and %s both have the document id %s; give each document its own id (id: … in its front matter, or at the top of a YAML document): the id is how a re-import finds the issues a document created", set.Files[j].Name, set.Files[i].Name, doc.ID)})
			continue
		}
		byID[doc.ID] = i
	}
	type keyed struct {
		file string
		it   Item
	}
	adopts := map[string]keyed{} // Key: lines across the documents (one document's are checked by Parse)
	for i, doc := range set.Documents {
		for _, it := range slices.Concat(doc.Items, doc.Subtasks) {
			if it.Key == "" {
				continue
			}
			if prev, dup := adopts[it.Key]; dup && prev.file != set.Files[i].Name {
				problems = append(problems, Problem{File: set.Files[i].Name, Item: it.ID, Field: "key", Line: it.KeyLine, Message: fmt.Sprintf("%s %s adopts %s (Key: line %d), which %s %s in %s adopts too (line %d); an issue belongs to one item, so keep one of the Key lines", kindWord(it.Kind), it.ID, it.Key, it.KeyLine, kindWord(prev.it.Kind), prev.it.ID, prev.file, prev.it.KeyLine)})
				continue
			}
			adopts[it.Key] = keyed{set.Files[i].Name, it}
		}
	}
	for i, doc := range set.Documents {
		for _, it := range doc.Items {
			if it.EpicRef == "" {
				continue
			}
			d, id, _ := strings.Cut(it.EpicRef, "/")
			j, in := byID[d]
			if !in {
				set.External = append(set.External, ExternalEpic{Reference: it.EpicRef, File: set.Files[i].Name, Document: doc.ID, Item: it.ID, Line: it.EpicRefLine})
				continue
			}
			k := slices.IndexFunc(set.Documents[j].Items, func(e Item) bool { return e.ID == id })
			switch {
			case k < 0:
				problems = append(problems, Problem{File: set.Files[i].Name, Item: it.ID, Field: "epic", Line: it.EpicRefLine, Message: fmt.Sprintf("Story %s references epic %s, which %s (document %s) does not define; add the epic there or correct the Epic: line", it.ID, it.EpicRef, set.Files[j].Name, d)})
			case set.Documents[j].Items[k].Kind != KindEpic:
				problems = append(problems, Problem{File: set.Files[i].Name, Item: it.ID, Field: "epic", Line: it.EpicRefLine, Message: fmt.Sprintf("Story %s references epic %s, which is a story in %s (line %d), not an epic; name an epic instead", it.ID, it.EpicRef, set.Files[j].Name, set.Documents[j].Items[k].Line)})
			}
		}
	}
	problems = append(problems, setCycles(set, byID)...)
	if len(problems) == 0 {
		return set, nil
	}
	// What can still be checked: one document per id.
	for i := len(set.Documents) - 1; i >= 0; i-- {
		if byID[set.Documents[i].ID] != i {
			set.Documents = slices.Delete(set.Documents, i, i+1)
			set.Files = slices.Delete(set.Files, i, i+1)
		}
	}
	lead := problems[0]
	where := lead.File
	if lead.Line > 0 {
		where = fmt.Sprintf("%s line %d", lead.File, lead.Line)
	}
	n := len(problems) + unlisted
	if unlisted > 0 {
		problems = append(problems, unlistedProblem(unlisted))
	}
	return set, &Error{Code: code, Problems: problems, Unlisted: unlisted,
		Message: fmt.Sprintf("%s in the planning documents (%s, with its file and line); fix them and %s. The first, in %s: %s", core.Plural(n, "problem", "problems"), listed(n, unlisted), RunAgain, where, lead.Message)}
}

// setCycles finds the dependency cycles that run across documents of the
// set (one document's own are refused by Parse): the items of every
// document and their Depends on / Blocks entries, references into other
// documents of the set resolved, make one graph; each cycle is one
// problem, at the dependency line of its first item.
func setCycles(set *Set, byID map[string]int) []Problem {
	type at struct {
		doc  int
		item Item
	}
	node := map[string]at{} // "doc/item" → where it is
	var nodes []string
	for i, doc := range set.Documents {
		if j, ok := byID[doc.ID]; !ok || j != i {
			continue // a duplicate id: reported above
		}
		for _, it := range slices.Concat(doc.Items, doc.Subtasks) {
			ref := doc.ID + "/" + it.ID
			if _, dup := node[ref]; !dup {
				node[ref] = at{i, it}
				nodes = append(nodes, ref)
			}
		}
	}
	adj := map[string][]string{}
	line := map[[2]string]int{} // edge → the line that made it
	for _, from := range nodes {
		a := node[from]
		docID := set.Documents[a.doc].ID
		for k, l := range slices.Concat(a.item.DependsOn, a.item.Blocks) {
			blocks := k >= len(a.item.DependsOn)
			to := l.Target
			switch l.Kind {
			case LinkItem:
				to = docID + "/" + l.Target
			case LinkReference:
			default:
				continue
			}
			if _, ok := node[to]; !ok {
				continue
			}
			e := [2]string{from, to} // from depends on to
			if blocks {
				e = [2]string{to, from}
			}
			if _, seen := line[e]; !seen {
				if !blocks { // a Blocks line is in the other item's file
					line[e] = l.Line
				}
				adj[e[0]] = append(adj[e[0]], e[1])
			}
		}
	}
	var out []Problem
	for _, path := range cycles(nodes, adj) {
		a := node[path[0]]
		ln := line[[2]string{path[0], path[1]}]
		if ln == 0 {
			ln = a.item.Line
		}
		out = append(out, Problem{File: set.Files[a.doc].Name, Item: a.item.ID, Field: "depends_on", Line: ln,
			Message: fmt.Sprintf("%s %s is part of a dependency cycle across documents: %s (each item depends on the next); committed, these items would block each other for ever. Remove one of these dependencies", kindWord(a.item.Kind), a.item.ID, cycleText(path))})
	}
	return out
}
