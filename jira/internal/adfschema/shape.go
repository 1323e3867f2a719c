package adfschema

import (
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// Validating a document against the full ADF schema is expensive (the
// schema is a tree of anyOf branches, and every failed branch builds an
// error), and the fake Jira validates every description it is sent. Most
// documents a client sends share their structure and differ only in their
// words, so Validate checks a document's shape once and remembers the
// shapes that passed.
//
// The shape of a document is the document with the text of every text node
// ({"type":"text","text":"…"} with a non-empty string) replaced by "x". A
// valid shape proves the document valid: in this schema a text value is
// only ever constrained by type string, minLength 1 and enum (hardBreak's
// "\n"); "x" meets the first two exactly when any non-empty string does,
// and meets no enum the schema has, so a shape can only fail where the
// document might pass — never the other way round. The schema uses no
// keyword that could invert that (not, if/then/else, const, uniqueItems
// are absent; TestShapeKeywordsMonotone keeps it so). When a shape fails,
// the document itself is validated, so errors are exactly the document's.

// shapeText is the stand-in for the text of a text node.
const shapeText = "x"

// maxShapes bounds the cache; when full it is emptied (shapes are few in
// practice, so this rarely happens and costs only re-validation).
const maxShapes = 4096

var shapes = struct {
	sync.Mutex
	ok map[[sha256.Size]byte]struct{}
}{ok: map[[sha256.Size]byte]struct{}{}}

// toShape replaces, in place, the text of every text node of v (as
// decoded by jsonschema.UnmarshalJSON) by shapeText.
func toShape(v any) {
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == "text" {
			if t, ok := x["text"].(string); ok && t != "" {
				x["text"] = shapeText
			}
		}
		for _, c := range x {
			toShape(c)
		}
	case []any:
		for _, c := range x {
			toShape(c)
		}
	}
}

// shapeKey is the digest of a shape's canonical JSON (object keys sorted,
// numbers as written).
func shapeKey(shape any) ([sha256.Size]byte, bool) {
	b, err := json.Marshal(shape)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(b), true
}

func knownShape(k [sha256.Size]byte) bool {
	shapes.Lock()
	defer shapes.Unlock()
	_, ok := shapes.ok[k]
	return ok
}

func rememberShape(k [sha256.Size]byte) {
	shapes.Lock()
	defer shapes.Unlock()
	if len(shapes.ok) >= maxShapes {
		clear(shapes.ok)
	}
	shapes.ok[k] = struct{}{}
}
