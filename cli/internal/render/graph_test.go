package render

import (
	"bytes"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/goldentest"
	"github.com/devworkwire/devworkwire/core/service"
)

const graphDoc = `---
id: checkout
---
## Epic e-1: Guest checkout

### Story s-1: Pay as a "guest"

### Story s-2: Save the address <for next time>
Depends on: s-1
Blocks: other-doc/s-9, PROJ-120

#### Sub-task t-1: Migration # 1

## Epic e-2: Receipts

### Story s-3: E-mail the receipt
Epic: e-2
Depends on: s-2
`

// TestMermaidGolden pins the Mermaid flowchart of a plan, without and
// with statuses (go test -update rewrites the golden files).
func TestMermaidGolden(t *testing.T) {
	g, err := service.DocumentGraph(service.GraphInput{Path: "checkout.md", Data: []byte(graphDoc)})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Mermaid(&b, g)
	goldentest.Check(t, "testdata/graph.golden.mmd", b.Bytes())

	statuses := map[string]core.Status{"e-1": core.StatusInProgress, "s-1": core.StatusDone, "s-2": core.StatusTodo, "t-1": core.StatusTodo, "PROJ-120": core.StatusDone}
	for i, n := range g.Nodes {
		if st, ok := statuses[n.ID]; ok {
			g.Nodes[i].Status, g.Nodes[i].Key = st, "DEMO-"+string(rune('1'+i))
		}
	}
	b.Reset()
	Mermaid(&b, g)
	goldentest.Check(t, "testdata/graph-status.golden.mmd", b.Bytes())
}
