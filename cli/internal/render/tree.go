package render

import (
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// SummaryRows is the number of rows beyond which the import preview shows
// only the rows that write or need attention (Options.Full shows all).
const SummaryRows = 50

// ShownWritten is the number of written items a commit summary lists
// before "… and N more written".
const ShownWritten = 10

// treeRow is one line of a tree: the item's index and the tree's drawing
// before its label (tree), before its label's wrapped lines (wrap: its
// ancestors' lines only, so a title continues right under its first
// line's text) and before its note lines (cont: with the line down to
// its children).
type treeRow struct {
	i                int
	tree, wrap, cont string
}

// treeNode is what the tree needs of an item.
type treeNode struct {
	kind        core.Kind
	ref, parent core.Reference
}

// treeOrder lays n items out as the preview's tree: each epic followed by
// its stories and each story by its sub-tasks (those naming a parent
// present in the list, one level up: epic → story → sub-task), the others
// in list order. Only the items show reports true for are laid out, and a
// parent whose children are shown (as their context).
func treeOrder(nodes []treeNode, show func(i int) bool) []treeRow {
	at := map[core.Reference]int{}
	for i, n := range nodes {
		if n.ref != "" {
			at[n.ref] = i
		}
	}
	// under: the node's parent is in the list, one level above it.
	under := func(n treeNode) bool {
		p, ok := at[n.parent]
		return n.parent != "" && ok && level(nodes[p].kind) < level(n.kind)
	}
	children := map[core.Reference][]int{}
	for i, n := range nodes {
		if under(n) {
			children[n.parent] = append(children[n.parent], i)
		}
	}
	// visible: shown, or the context of a shown descendant (the levels are
	// at most three, and a child is always a level below its parent).
	memo := map[int]bool{}
	var visible func(i int) bool
	visible = func(i int) bool {
		if v, ok := memo[i]; ok {
			return v
		}
		v := show(i)
		for _, k := range children[nodes[i].ref] {
			v = visible(k) || v
		}
		memo[i] = v
		return v
	}
	var rows []treeRow
	// add lays out node i and its visible children; lead is the drawing
	// of its ancestors' lines, branch its own connector ("" at the root).
	var add func(i int, lead, branch, own string)
	add = func(i int, lead, branch, own string) {
		var kids []int
		for _, k := range children[nodes[i].ref] {
			if visible(k) {
				kids = append(kids, k)
			}
		}
		cont := lead + own
		if len(kids) > 0 {
			cont += "│ "
		}
		rows = append(rows, treeRow{i: i, tree: lead + branch, wrap: lead + own, cont: cont})
		for j, k := range kids {
			if j == len(kids)-1 {
				add(k, lead+own, "└─ ", "   ")
			} else {
				add(k, lead+own, "├─ ", "│  ")
			}
		}
	}
	for i, n := range nodes {
		if !under(n) && visible(i) {
			add(i, "", "", "")
		}
	}
	return rows
}

// level is a kind's depth in the tree: epic 0, story 1, sub-task 2.
func level(k core.Kind) int {
	switch k {
	case core.KindEpic:
		return 0
	case core.KindSubtask:
		return 2
	}
	return 1
}

// planNodes are the tree nodes of a preview's rows.
func planNodes(items []service.PlanItem) []treeNode {
	out := make([]treeNode, len(items))
	for i, it := range items {
		out[i] = treeNode{it.Kind, it.Reference, it.Parent}
	}
	return out
}

// commitNodes are the tree nodes of a commit's items.
func commitNodes(items []service.CommittedItem) []treeNode {
	out := make([]treeNode, len(items))
	for i, it := range items {
		out[i] = treeNode{it.Kind, it.Reference, it.Parent}
	}
	return out
}

// needsAttention reports whether a preview row is shown in the summary
// form: it writes, or a person should look at it.
func needsAttention(it service.PlanItem) bool {
	return it.Action != core.ActionUnchanged || it.BlockedReason != "" || it.Released
}
