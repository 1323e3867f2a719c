package adf_test

import (
	"encoding/json"
	"fmt"

	"github.com/devworkwire/devworkwire/jira/adf"
)

func ExampleFromMarkdown() {
	d, err := adf.FromMarkdown("Ship **v2**:\n\n- [ ] tag\n- [x] notes\n")
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(d)
	fmt.Println(string(b))
	// Output:
	// {"version":1,"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"Ship "},{"type":"text","text":"v2","marks":[{"type":"strong"}]},{"type":"text","text":":"}]},{"type":"taskList","attrs":{"localId":"dwire-1"},"content":[{"type":"taskItem","attrs":{"localId":"dwire-2","state":"TODO"},"content":[{"type":"text","text":"tag"}]},{"type":"taskItem","attrs":{"localId":"dwire-3","state":"DONE"},"content":[{"type":"text","text":"notes"}]}]}]}
}

func ExampleToMarkdown() {
	d, err := adf.Parse([]byte(`{"version":1,"type":"doc","content":[
		{"type":"heading","attrs":{"level":2},"content":[{"type":"text","text":"Status"}]},
		{"type":"paragraph","content":[
			{"type":"mention","attrs":{"id":"557058:f00","text":"@Ann"}},
			{"type":"text","text":" moved this to "},
			{"type":"status","attrs":{"text":"IN REVIEW","color":"blue"}},
			{"type":"text","text":" — see "},
			{"type":"inlineCard","attrs":{"url":"https://example.atlassian.net/browse/DEMO-7"}}]}]}`))
	if err != nil {
		panic(err)
	}
	fmt.Print(adf.ToMarkdown(d))
	// Output:
	// ## Status
	//
	// [@Ann](mention:557058:f00) moved this to [IN REVIEW](status:blue) — see [https://example.atlassian.net/browse/DEMO-7](card:)
}
