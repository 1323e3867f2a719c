package adf

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/devworkwire/devworkwire/core"
)

func TestFromMarkdownBasics(t *testing.T) {
	d := checkMarkdown(t, "basics", "# Title\n\nSome *em* and **strong** text.\n\n- [ ] todo\n- [x] done\n")
	got := string(mustJSON(t, d))
	want := `{"version":1,"type":"doc","content":[` +
		`{"type":"heading","attrs":{"level":1},"content":[{"type":"text","text":"Title"}]},` +
		`{"type":"paragraph","content":[{"type":"text","text":"Some "},{"type":"text","text":"em","marks":[{"type":"em"}]},{"type":"text","text":" and "},{"type":"text","text":"strong","marks":[{"type":"strong"}]},{"type":"text","text":" text."}]},` +
		`{"type":"taskList","attrs":{"localId":"dwire-1"},"content":[{"type":"taskItem","attrs":{"localId":"dwire-2","state":"TODO"},"content":[{"type":"text","text":"todo"}]},{"type":"taskItem","attrs":{"localId":"dwire-3","state":"DONE"},"content":[{"type":"text","text":"done"}]}]}]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestEmptyDocMarshalsContentArray(t *testing.T) {
	d, err := FromMarkdown("")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(mustJSON(t, d)); got != `{"version":1,"type":"doc","content":[]}` {
		t.Errorf("got %s", got)
	}
	if got := string(mustJSON(t, Doc{})); got != `{"version":1,"type":"doc","content":[]}` {
		t.Errorf("zero Doc: got %s", got)
	}
}

func TestParseRoundTripsJSON(t *testing.T) {
	in := `{"version":1,"type":"doc","content":[{"type":"orderedList","attrs":{"order":3},"content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"x","marks":[{"type":"link","attrs":{"href":"https://example.com"}}]}]}]}]}]}`
	d, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal([]byte(in), &a)
	_ = json.Unmarshal(mustJSON(t, d), &b)
	if mustJSONString(t, a) != mustJSONString(t, b) {
		t.Errorf("Parse+Marshal changed the document:\n in  %s\n out %s", in, mustJSON(t, d))
	}
	if got := ToMarkdown(d); got != "3. [&#120;](https://example.com)\n" {
		t.Errorf("ToMarkdown = %q", got)
	}
}

func mustJSONString(t testing.TB, v any) string { return string(mustJSON(t, v)) }

func TestParseRejectsNonADF(t *testing.T) {
	for _, in := range []string{`{"type":"paragraph"}`, `[1,2]`, `{"type":"doc","content":`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%s) = nil error", in)
		}
	}
	d, err := Parse([]byte("null"))
	if err != nil || len(d.Content) != 0 {
		t.Errorf("Parse(null) = %v, %v", d, err)
	}
	_, err = Parse([]byte(`{"type":"paragraph"}`))
	if code := core.ErrorCode(err); code != core.CodeInternal || !strings.Contains(err.Error(), `"paragraph"`) {
		t.Errorf("Parse(paragraph) error = %v (code %s)", err, code)
	}
	var viaJSON Doc
	if err := json.Unmarshal([]byte(`{"type":"table"}`), &viaJSON); err == nil {
		t.Error("json.Unmarshal into Doc accepted a non-doc")
	}
	if err := json.Unmarshal([]byte(`{"version":1,"type":"doc","content":[{"type":"rule"}]}`), &viaJSON); err != nil || len(viaJSON.Content) != 1 {
		t.Errorf("json.Unmarshal into Doc = %v, %v", viaJSON, err)
	}
}
