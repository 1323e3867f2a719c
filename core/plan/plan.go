package plan

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// MaxSize is the largest planning document accepted, in bytes.
const MaxSize = 5 << 20

// MaxTitleLength is Jira's limit on an issue summary, in characters.
const MaxTitleLength = 255

// MaxDescriptionLength is Jira Cloud's limit on a multi-line text field
// (jira.text.field.character.limit), in characters.
const MaxDescriptionLength = 32767

// The item kinds.
const (
	KindEpic    = "epic"
	KindStory   = "story"
	KindSubtask = "subtask" // in Document.Subtasks only
)

// DriftTakeDocument is the only value of the drift override marker.
const DriftTakeDocument = "take-document"

// The error codes Parse and ReadFile return (the same strings as the core
// error codes).
const (
	CodeSourceNotFound    = "SOURCE_NOT_FOUND"
	CodeSourceParseFailed = "SOURCE_PARSE_FAILED"
	CodeValidationFailed  = "VALIDATION_FAILED"
)

// Item is one epic or story of a planning document.
type Item struct {
	ID                 string   // local id, e.g. "e-1", "s-3"; matches ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$
	Kind               string   // "epic" | "story"
	Title              string   // one line, at most 255 characters
	Description        string   // Markdown, verbatim (trimmed of leading/trailing blank lines)
	AcceptanceCriteria []string // one entry per criterion, Markdown
	Epic               string   // for a story: id of its epic ("" = no epic, or an epic of another document: EpicRef)
	// EpicRef is, for a story whose "Epic:" line names an epic of another
	// document ("infra-q1/e-1"), that reference; Epic is "" then. Parse
	// checks only its form: ParseSet checks it against the other documents
	// of a set, the importer against the tracker.
	EpicRef      string `json:",omitempty"`
	EpicRefLine  int    `json:",omitempty"` // the line of that "Epic:" line (`epic:` key)
	Story        string `json:",omitempty"` // for a sub-task: id of its story
	Line         int    // 1-based line of the item's heading / YAML node
	TakeDocument bool   // drift override marker ("Drift: take-document" / `drift: take-document`)
	// CriteriaBoxes holds, per acceptance criterion, the task-list box it
	// was written with in Markdown (BoxTodo "[ ]", BoxDone "[x]", "" for a
	// plain list item); nil when no criterion has one. The box is not part
	// of the criterion's text.
	CriteriaBoxes []string `json:",omitempty"`
	// TakeFields are the fields a "Drift: take-document priority, …"
	// marker names (keys: "priority", "fields.Team"; the content keys
	// "title", "description", "acceptance_criteria", "parent"); empty
	// when the marker names none, which takes everything.
	TakeFields []string `json:",omitempty"`
	// Fields are the item's managed fields (its field block / field keys)
	// with the document's defaults applied; the zero Fields manages
	// nothing. They are parsed and validated, not yet written to the
	// tracker (docs/plan-format.md, "Fields").
	Fields Fields `json:",omitzero"`
	// DependsOn lists what this item is blocked by, Blocks what it blocks
	// ("Depends on:" / "Blocks:" lines, `depends_on:` / `blocks:` keys), in
	// the order written. Parsed and validated, not yet written.
	DependsOn []Link `json:",omitempty"`
	Blocks    []Link `json:",omitempty"`
	// Key is the Jira issue this item adopts ("Key: PROJ-12" in the field
	// block, `key:` in YAML): the import writes the item's reference to
	// that existing issue instead of creating one. "" for none. KeyLine is
	// the line that set it.
	Key     string `json:",omitempty"`
	KeyLine int    `json:",omitempty"`
}

// Document is a parsed, valid planning document.
type Document struct {
	ID    string // document id: front matter / top-level `id:`, else derived from the file name
	Title string // optional
	Items []Item // epics and stories, in document order
	// Subtasks are the stories' sub-tasks ("#### Sub-task" / `subtasks:`),
	// in document order, each naming its story. Parsed and validated, not
	// yet written (so kept apart from Items, which the import writes).
	Subtasks []Item `json:",omitempty"`
	// Defaults are the document's `defaults:` (front matter or top level)
	// as written; they are already applied to every item's Fields.
	Defaults Fields `json:",omitzero"`
	// Removed is the document's `removed:` (RemovedClose or RemovedLeave;
	// "" when not set, which is RemovedLeave).
	Removed string `json:",omitempty"`
}

// Problem is one validation problem. Item is the item id ("" for the
// document), Field the field concerned ("id", "title", "epic",
// "acceptance_criteria", "drift", "kind", ...), Line the 1-based source
// line (0 when there is none).
type Problem struct {
	Item, Field string
	Line        int
	Message     string
	// File is the file of a set the problem is in (ParseSet; "" for Parse).
	File string `json:",omitempty"`
}

// Error is the error Parse and ReadFile return. Code is one of
// SOURCE_NOT_FOUND, SOURCE_PARSE_FAILED or VALIDATION_FAILED; Line is the
// line an unparseable document failed at (0 when not known); Problems lists
// every validation problem (VALIDATION_FAILED only).
type Error struct {
	Code     string
	Message  string
	Line     int
	Problems []Problem
	// Unlisted counts the problems found but not in Problems (past
	// MaxProblems); Problems then ends with an entry saying so.
	Unlisted int `json:",omitempty"`
	// NotPlan is set when the input defines no epic or story and sets no
	// document id (Markdown without item headings or front matter id;
	// YAML without the keys id, epics and stories): it is not a planning
	// document at all, such as a README next to the plans. ParseSet skips
	// such files; Parse refuses them like any empty document.
	NotPlan bool `json:",omitempty"`
}

// Error implements error: "CODE: message".
func (e *Error) Error() string { return e.Code + ": " + e.Message }

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidID reports whether id is a valid item or document id.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// ReadFile reads a planning document from disk. A missing path, a
// directory or any other file that is not a regular file (a named pipe, a
// socket, a device) is SOURCE_NOT_FOUND; a file over MaxSize is
// SOURCE_PARSE_FAILED and is not read into memory.
//
// ReadFile never blocks on what it opens: the file is opened without
// waiting (O_NONBLOCK on Unix, so a FIFO opens at once even with no writer)
// and the opened file itself is checked to be regular before any byte is
// read, so swapping the path for a pipe between a check and the read
// cannot make it hang either.
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		// Opening a socket fails (ENXIO on Unix); say what the path is.
		if fi, serr := os.Stat(path); serr == nil {
			if perr := checkRegular(path, fi); perr != nil {
				return nil, perr
			}
		}
		return nil, notFound(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s could not be read (%s); check that the file is readable", path, core.FSReason(err))}
	}
	if perr := checkRegular(path, fi); perr != nil {
		return nil, perr
	}
	if fi.Size() > MaxSize {
		return nil, tooLarge(path, fi.Size())
	}
	data, err := readSized(io.LimitReader(f, MaxSize+1), fi.Size())
	if err != nil {
		return nil, &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s could not be read (%s); check that the file is readable", path, core.FSReason(err))}
	}
	if len(data) > MaxSize {
		return nil, tooLarge(path, -1)
	}
	return data, nil
}

// readSized reads r to its end into a buffer made for size bytes (a
// file's size: one allocation when the file did not change), as
// os.ReadFile does.
func readSized(r io.Reader, size int64) ([]byte, error) {
	data := make([]byte, 0, max(size+1, 512))
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew: room for more
		}
	}
}

// checkRegular refuses anything but a regular file, naming what path is.
func checkRegular(path string, fi fs.FileInfo) *Error {
	m := fi.Mode()
	var what string
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s is a directory, not a planning document; give the path of a .md, .markdown, .yaml or .yml file", path)}
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	default:
		what = "not a regular file"
	}
	if what != "not a regular file" {
		what += ", not a regular file"
	}
	return &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s is %s, so it is not read (reading it could wait forever); save the plan as a regular .md, .markdown, .yaml or .yml file and give its path", path, what)}
}

func notFound(path string, err error) *Error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s does not exist; check the path (relative paths are resolved from the current directory)", path)}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s could not be read: permission denied; check the file's permissions", path)}
	default:
		return &Error{Code: CodeSourceNotFound, Message: fmt.Sprintf("%s could not be opened (%s); check the path", path, core.FSReason(err))}
	}
}

func tooLarge(name string, size int64) *Error {
	what := "more than 5 MiB"
	if size >= 0 {
		// In bytes too: one byte over is "5.0 MiB" in MiB alone.
		what = fmt.Sprintf("%s bytes (%.1f MiB)", thousands(size), float64(size)/(1<<20))
	}
	return &Error{Code: CodeSourceParseFailed, Message: fmt.Sprintf("%s is %s; the limit is 5 MiB (%s bytes). Split the plan into several documents, each with its own id", name, what, thousands(MaxSize))}
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

type format int

const (
	formatUnknown format = iota
	formatMarkdown
	formatYAML
)

// FormatOf is the document format a file name's extension stands for
// (FormatMarkdown for .md and .markdown, FormatYAML for .yaml and .yml,
// any case), "" for none: the rule Parse reads by.
func FormatOf(name string) string {
	return [...]string{formatUnknown: "", formatMarkdown: FormatMarkdown, formatYAML: FormatYAML}[formatOf(name)]
}

// FormatName is the format a name a person gives stands for: "markdown"
// or "md" is FormatMarkdown, "yaml" or "yml" FormatYAML (any case, spaces
// around ignored). Anything else comes back trimmed and lower-cased for
// the caller to refuse; "" stays "" (the caller's default).
func FormatName(s string) string {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "md", FormatMarkdown:
		return FormatMarkdown
	case "yml", FormatYAML:
		return FormatYAML
	}
	return s
}

func formatOf(name string) format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown":
		return formatMarkdown
	case ".yaml", ".yml":
		return formatYAML
	}
	return formatUnknown
}

// Parse parses and validates a planning document. name selects the format
// by its extension (.md or .markdown → Markdown, .yaml or .yml → YAML) and
// gives the default document id (the base name without extension,
// sanitised); pass just an extension (".md") when there is no file name.
// The error is always a *Error: SOURCE_PARSE_FAILED for input that cannot
// be read as a document (with the line), VALIDATION_FAILED listing every
// problem.
func Parse(name string, data []byte) (*Document, error) {
	return Options{}.Parse(name, data)
}

// Parse is the package's Parse with these options (custom fields).
func (o Options) Parse(name string, data []byte) (*Document, error) {
	doc, err := o.ParseChecked(name, data)
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// ParseChecked is Parse that, with a VALIDATION_FAILED error, also returns
// what can still be checked further: the document of the items that
// parsed (its id valid; an item whose id is missing, invalid or taken by
// another is left out, and so are its sub-tasks and every epic, sub-task
// or dependency reference to it; a Key line with a problem is dropped).
// A caller that only reports problems (an import preview) can so check the
// values of those items against the tracker in the same run, instead of
// saying the rest one round later. The document is nil when nothing can
// be checked (no valid id, no item), and always nil with the other codes.
func (o Options) ParseChecked(name string, data []byte) (*Document, error) {
	f := formatOf(name)
	if f == formatUnknown {
		shown := name
		if shown == "" {
			shown = "The document"
		}
		return nil, &Error{Code: CodeSourceParseFailed, Message: fmt.Sprintf("%s has no planning document extension; use .md or .markdown for Markdown, .yaml or .yml for YAML", quoteName(shown))}
	}
	if len(data) > MaxSize {
		return nil, tooLarge(displayName(name), int64(len(data)))
	}
	r, _, perr := o.parseRaw(name, data, f)
	if perr != nil {
		return nil, perr
	}
	return r.finish(name)
}

// parseRaw parses data (of format f) into items not yet validated, with
// where each part was written (rawItem.span, for the rewriter); it also
// returns the text as parsed (byte order mark dropped, line endings LF).
func (o Options) parseRaw(name string, data []byte, f format) (*result, []byte, *Error) {
	data, perr := checkText(name, data)
	if perr != nil {
		return nil, nil, perr
	}
	var r *result
	if f == formatMarkdown {
		r, perr = parseMarkdown(name, data, &o)
	} else {
		r, perr = parseYAML(name, data, &o)
	}
	if perr != nil {
		return nil, nil, perr
	}
	return r, data, nil
}

func quoteName(s string) string {
	if s == "The document" {
		return s
	}
	return fmt.Sprintf("%q", s)
}

// displayName is how messages name the document.
func displayName(name string) string {
	if base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)); name == "" || base == "" {
		return "The document"
	}
	return name
}
