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
// before its label (tree) and before its note lines (cont).
type treeRow struct {
	i          int
	tree, cont string
}

// treeNode is what the tree needs of an item.
type treeNode struct {
	kind        core.Kind
	ref, parent core.Reference
}

// treeOrder lays n items out as the preview's tree: each epic followed by
// its stories (those naming an epic present in the list), the others in
// list order. Only the items show reports true for are laid out, and an
// epic whose stories are shown (as their context).
func treeOrder(nodes []treeNode, show func(i int) bool) []treeRow {
	epics := map[core.Reference]bool{}
	for _, n := range nodes {
		if n.kind == core.KindEpic {
			epics[n.ref] = true
		}
	}
	under := func(n treeNode) bool { return n.kind != core.KindEpic && n.parent != "" && epics[n.parent] }
	children := map[core.Reference][]int{}
	for i, n := range nodes {
		if under(n) && show(i) {
			children[n.parent] = append(children[n.parent], i)
		}
	}
	var rows []treeRow
	for i, n := range nodes {
		kids := children[n.ref]
		if under(n) || (len(kids) == 0 && !show(i)) {
			continue // under its epic, or not shown
		}
		cont := ""
		if len(kids) > 0 {
			cont = "│ "
		}
		rows = append(rows, treeRow{i: i, cont: cont})
		for j, k := range kids {
			tree, c := "├─ ", "│  "
			if j == len(kids)-1 {
				tree, c = "└─ ", "   "
			}
			rows = append(rows, treeRow{i: k, tree: tree, cont: c})
		}
	}
	return rows
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
