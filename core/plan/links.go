package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// LinkKind says what a dependency entry names.
type LinkKind string

// The kinds of dependency entries.
const (
	LinkItem      LinkKind = "item"      // an item of this document (Target is its id)
	LinkReference LinkKind = "reference" // an item of another document, "doc-id/item-id"
	LinkKey       LinkKind = "key"       // an existing Jira issue, "PROJ-120"
)

// Link is one entry of a "Depends on:" or "Blocks:" line (`depends_on:` /
// `blocks:` key). Target is the id, reference or key as written (a
// reference into this document itself is turned into the item's id).
type Link struct {
	Kind   LinkKind
	Target string
	Line   int
}

// jiraKeyRe matches a Jira issue key: a project key (an upper-case
// letter, then upper-case letters, digits or '_') and a number.
var jiraKeyRe = regexp.MustCompile(`^[A-Z][A-Z0-9_]+-[1-9][0-9]{0,14}$`)

// linkNames are the Markdown names of the dependency lines, with their
// YAML keys.
var linkNames = map[string]string{"depends on": "depends_on", "blocks": "blocks"}

// linkDisplay is how messages write a dependency line's name.
func linkDisplay(key string) string {
	if key == "blocks" {
		return "Blocks"
	}
	return "Depends on"
}

// rawLinks are an item's dependency entries as written, before it is
// known which ids the document defines.
type rawLinks struct {
	dependsOn, blocks []Link
	lines             map[string]int // key → line that set it
}

// addLinks parses the entries of a dependency line (Markdown value or
// YAML list) for the item it, reporting each bad entry.
func (r *result) addLinks(it *rawItem, key string, entries []string, line int, who, shown string) {
	if it.links.lines == nil {
		it.links.lines = map[string]int{}
	}
	if prev, dup := it.links.lines[key]; dup {
		r.addf(it.ID, key, line, "%s has two %s lines (lines %d and %d); list every entry on one line", who, linkDisplay(key), prev, line)
		return
	}
	it.links.lines[key] = line
	var out []Link
	for _, e := range entries {
		e = strings.TrimSpace(e)
		var l Link
		switch {
		case e == "":
			r.addf(it.ID, key, line, "%s has an empty entry in %q at line %d; separate the entries with single commas", who, shown, line)
			continue
		case strings.Contains(e, "/"):
			doc, item, _ := strings.Cut(e, "/")
			if !ValidID(doc) || !ValidID(item) {
				r.addf(it.ID, key, line, "%s has %q in %q at line %d, which is not a valid reference; write <document id>/<item id>, such as checkout-v1/s-9", who, e, shown, line)
				continue
			}
			l = Link{Kind: LinkReference, Target: e, Line: line}
		case ValidID(e) || jiraKeyRe.MatchString(e):
			l = Link{Kind: LinkItem, Target: e, Line: line} // a key unless the document defines the id (see resolveLinks)
		default:
			r.addf(it.ID, key, line, "%s has %q in %q at line %d, which is not an item id, a reference (document/item) or a Jira issue key (PROJ-120)", who, e, shown, line)
			continue
		}
		if !slices.ContainsFunc(out, func(x Link) bool { return x.Target == l.Target }) {
			out = append(out, l)
		}
	}
	if key == "blocks" {
		it.links.blocks = out
	} else {
		it.links.dependsOn = out
	}
}

// resolveLinks decides what each dependency entry names, reports entries
// that name nothing, an item depending on itself and dependency cycles,
// and fills DependsOn and Blocks. defined reports whether the document
// defines an id.
func (r *result) resolveLinks(docID string, items []*rawItem, defined func(id string) bool) {
	type edge struct{ from, to string } // from depends on to
	var edges []edge
	edgeLine := map[edge]int{}
	for _, it := range items {
		if it.noID {
			continue
		}
		w := kindWord(it.Kind)
		for _, key := range []string{"depends_on", "blocks"} {
			list := it.links.dependsOn
			verb := "depends on"
			if key == "blocks" {
				list, verb = it.links.blocks, "blocks"
			}
			var kept []Link
			for _, l := range list {
				if l.Kind == LinkReference && docID != "" && strings.HasPrefix(l.Target, docID+"/") {
					l = Link{Kind: LinkItem, Target: strings.TrimPrefix(l.Target, docID+"/"), Line: l.Line}
				}
				if l.Kind == LinkItem {
					switch {
					case l.Target == it.ID:
						r.addf(it.ID, key, l.Line, "%s %s %s itself (line %d); remove %s from its %s line", w, it.ID, verb, l.Line, it.ID, linkDisplay(key))
						continue
					case defined(l.Target):
						e := edge{it.ID, l.Target}
						if key == "blocks" {
							e = edge{l.Target, it.ID}
						}
						if _, seen := edgeLine[e]; !seen {
							edges = append(edges, e)
							edgeLine[e] = l.Line
						}
					case jiraKeyRe.MatchString(l.Target):
						l.Kind = LinkKey
					default:
						r.addf(it.ID, key, l.Line, "%s %s %s %s, which is not defined in this document; define it, correct the %s line (line %d), or name another document's item as <document id>/<item id>", w, it.ID, verb, l.Target, linkDisplay(key), l.Line)
						continue
					}
				}
				kept = append(kept, l)
			}
			if key == "blocks" {
				it.Blocks = kept
			} else {
				it.DependsOn = kept
			}
		}
	}
	// Cycles: strongly connected components of more than one item, each
	// reported once with one cycle through it.
	adj := map[string][]string{}
	for _, e := range edges {
		adj[e.from] = append(adj[e.from], e.to)
	}
	var ids []string
	for _, it := range items { // document order: deterministic
		if !it.noID {
			ids = append(ids, it.ID)
		}
	}
	order := map[string]int{}
	for i, it := range items {
		if _, ok := order[it.ID]; !ok {
			order[it.ID] = i
		}
	}
	for _, path := range cycles(ids, adj) {
		start := path[0]
		first := edge{path[0], path[1]}
		it := items[order[start]]
		r.addf(start, "depends_on", edgeLine[first], "%s %s is part of a dependency cycle: %s (each item depends on the next); remove one of these dependencies", kindWord(it.Kind), start, cycleText(path))
	}
}

// cycles returns one cycle (its first node repeated at the end) through
// each strongly connected component of more than one node of the graph
// adj (Tarjan), starting at the component's node that comes first in
// nodes, the order the nodes are visited in.
func cycles(nodes []string, adj map[string][]string) [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	next := 0
	var comps [][]string
	var strong func(v string)
	strong = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range adj[v] {
			if _, ok := index[w]; !ok {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			if len(c) > 1 {
				comps = append(comps, c)
			}
		}
	}
	for _, v := range nodes {
		if _, ok := index[v]; !ok && len(adj[v]) > 0 {
			strong(v)
		}
	}
	rank := map[string]int{}
	for i, v := range nodes {
		if _, ok := rank[v]; !ok {
			rank[v] = i
		}
	}
	paths := make([][]string, len(comps))
	for i, c := range comps {
		in := map[string]bool{}
		start := c[0]
		for _, v := range c {
			in[v] = true
			if rank[v] < rank[start] {
				start = v
			}
		}
		paths[i] = cyclePath(start, adj, in)
	}
	return paths
}

// MaxCycleShown is how many items of a dependency cycle its problem
// names: a longer cycle shows its first and last items and how many are
// left out between them, so that a 10,000-item cycle is one short line.
const MaxCycleShown = 20

// cycleText writes path (a cycle, its first item repeated at the end) for
// people, at most MaxCycleShown items of it.
func cycleText(path []string) string {
	if len(path) <= MaxCycleShown+1 {
		return strings.Join(path, " → ")
	}
	head, tail := path[:MaxCycleShown-5], path[len(path)-5:]
	return fmt.Sprintf("%s → … %d more … → %s (a cycle of %d items)", strings.Join(head, " → "), len(path)-len(head)-len(tail), strings.Join(tail, " → "), len(path)-1)
}

// cyclePath returns a cycle from start back to start within the items in
// (a strongly connected component), found breadth-first so it is short.
func cyclePath(start string, adj map[string][]string, in map[string]bool) []string {
	prev := map[string]string{}
	queue := []string{start}
	seen := map[string]bool{start: true}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range adj[v] {
			if !in[w] {
				continue
			}
			if w == start {
				path := []string{start}
				for x := v; x != start; x = prev[x] {
					path = append(path, x)
				}
				slices.Reverse(path[1:])
				return append(path, start)
			}
			if !seen[w] {
				seen[w] = true
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []string{start, start}
}
