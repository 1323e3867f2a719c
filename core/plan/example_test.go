package plan_test

import (
	"errors"
	"fmt"

	"github.com/devworkwire/devworkwire/core/plan"
)

func ExampleParse() {
	src := `---
id: checkout-v2
---
## Epic e-1: Guest checkout

### Story s-1: Pay without an account
Acceptance criteria:
- A guest can pay with a card
`
	doc, err := plan.Parse("checkout.md", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range doc.Items {
		fmt.Printf("%s/%s %s %q epic=%q criteria=%q\n", doc.ID, it.ID, it.Kind, it.Title, it.Epic, it.AcceptanceCriteria)
	}
	// Output:
	// checkout-v2/e-1 epic "Guest checkout" epic="" criteria=[]
	// checkout-v2/s-1 story "Pay without an account" epic="e-1" criteria=["A guest can pay with a card"]
}

func ExampleParse_problems() {
	src := `## Story s-3: Remember the cart
Epic: e-9

## Story s-3: Duplicate
`
	_, err := plan.Parse("checkout.md", []byte(src))
	var pe *plan.Error
	if errors.As(err, &pe) {
		fmt.Println(pe.Code)
		for _, p := range pe.Problems {
			fmt.Printf("line %d, %s %s: %s\n", p.Line, p.Item, p.Field, p.Message)
		}
	}
	// Output:
	// VALIDATION_FAILED
	// line 2, s-3 epic: Story s-3 references epic e-9, which is not defined in this document; add "## Epic e-9: <title>" or correct the Epic: line
	// line 4, s-3 id: Story s-3 at line 4 has the same id as the story at line 1; give each item its own id (the id is how a re-import finds the Jira issue it created)
}
