package e2e

import (
	"fmt"
	"strings"
)

// planSpec describes a generated planning document.
type planSpec struct {
	id      string
	epics   int
	stories int               // per epic
	titles  map[string]string // item id → title override
	extra   string            // appended Markdown (e.g. an epic-less story)
}

func (p planSpec) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s\n---\n# Plan %s\n\n", p.id, p.id)
	n := 0
	for e := 1; e <= p.epics; e++ {
		eid := fmt.Sprintf("e-%d", e)
		fmt.Fprintf(&b, "## Epic %s: %s\n\nEpic number %d of the plan, with **bold** text and a [link](https://example.com/%d).\n\n", eid, p.title(eid, fmt.Sprintf("Epic %d", e)), e, e)
		for s := 1; s <= p.stories; s++ {
			n++
			sid := fmt.Sprintf("s-%d", n)
			fmt.Fprintf(&b, "### Story %s: %s\n\nAs a user I want feature %d.\n\n- a list item\n- another one\n\nAcceptance criteria:\n- Criterion one of %s\n- Criterion two of %s\n\n", sid, p.title(sid, fmt.Sprintf("Story %d", n)), n, sid, sid)
		}
	}
	b.WriteString(p.extra)
	return b.String()
}

func (p planSpec) title(id, def string) string {
	if t, ok := p.titles[id]; ok {
		return t
	}
	return def
}

// refs returns every reference the document defines.
func (p planSpec) refs() []string {
	var r []string
	n := 0
	for e := 1; e <= p.epics; e++ {
		r = append(r, fmt.Sprintf("%s/e-%d", p.id, e))
		for s := 1; s <= p.stories; s++ {
			n++
			r = append(r, fmt.Sprintf("%s/s-%d", p.id, n))
		}
	}
	return r
}
