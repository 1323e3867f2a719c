package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// The digests are of the bytes json.Marshal writes, for any text: the
// digests trackers hold from earlier releases stay equal.
func TestDigestsAreOfJSONAsMarshalled(t *testing.T) {
	text := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.SampledFrom([]rune{'<', '>', '&', '"', '\\', '\n', '\b', '\f', '\t', '\x00', '\x7f', '\u2028', '\u2029', 'é', '\ufffd', 'a', ' '})),
		rapid.Custom(func(t *rapid.T) string { return string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes")) }))
	rapid.Check(t, func(t *rapid.T) {
		kind, title, description, parent := text.Draw(t, "kind"), text.Draw(t, "title"), text.Draw(t, "description"), text.Draw(t, "parent")
		ac := rapid.SliceOfN(text, 0, 4).Draw(t, "criteria")
		if rapid.Bool().Draw(t, "nil criteria") && len(ac) == 0 {
			ac = nil
		}
		b, err := json.Marshal(struct {
			K Kind      `json:"k"`
			T string    `json:"t"`
			D string    `json:"d"`
			A []string  `json:"a"`
			P Reference `json:"p"`
		}{Kind(kind), title, description, ac, Reference(parent)})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got, want := ContentDigest(Kind(kind), title, description, ac, Reference(parent)), "sha256:"+hex.EncodeToString(sum[:]); got != want {
			t.Fatalf("ContentDigest = %s; the digest of %s is %s", got, b, want)
		}
		v := ac
		if v == nil {
			v = []string{}
		}
		b, _ = json.Marshal(v)
		sum = sha256.Sum256(b)
		if got, want := ContentFieldDigest(ac...), "sha256:"+hex.EncodeToString(sum[:12]); got != want {
			t.Fatalf("ContentFieldDigest = %s; the digest of %s is %s", got, b, want)
		}
	})
}

// Known digests, as every release so far has taken them.
func TestDigestsOfKnownContent(t *testing.T) {
	if got, want := ContentDigest(KindStory, "Story 1 of epic 1", "As a user I want story 1 so that the benchmark has some text to carry.", []string{"It works", "It is tested"}, "bench/e-1"),
		"sha256:65e896ba0e9e24387b15fd301585d9333a7d2cecad77608d88fba56259b4761c"; got != want {
		t.Errorf("ContentDigest = %s, want %s", got, want)
	}
	if got, want := ContentFieldDigest(), ContentFieldDigest([]string{}...); got != want {
		t.Errorf("ContentFieldDigest() = %s; of an empty list %s", got, want)
	}
}
