package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// The content and field digests are taken of JSON as encoding/json writes
// it (digests stored in trackers by every release must stay equal). A
// preview takes four of them per item, so they are written here without
// reflection; digestjson_test.go checks the bytes against json.Marshal.

// appendJSONString appends s as json.Marshal writes a string: a string of
// printable ASCII that needs no escape as it is, any other through
// json.Marshal itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONStrings appends v as json.Marshal writes a []string (nil as
// null).
func appendJSONStrings(b []byte, v []string) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// digestOf is "sha256:" and the hex of the first n bytes of b's SHA-256.
func digestOf(b []byte, n int) string {
	sum := sha256.Sum256(b)
	out := make([]byte, len("sha256:")+2*n)
	copy(out, "sha256:")
	hex.Encode(out[len("sha256:"):], sum[:n])
	return string(out)
}
