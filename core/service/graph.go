package service

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/plan"
)

// A planning document's structure as a graph (epics, stories, sub-tasks,
// dependencies), for a picture of the plan. DocumentGraph reads only the
// document; WorkItemService.Graph adds each item's status from the tracker.

// GraphInput names a planning document (Path, or Data with a Path for its
// name) and whether to read statuses from the tracker.
type GraphInput struct {
	Path   string `json:"path"`
	Data   []byte `json:"-"`
	Status bool   `json:"status,omitempty"`
}

// GraphNode is one item of the document, or an outside item a dependency
// names (Kind "" and Outside set).
type GraphNode struct {
	ID      string      `json:"id"` // local id, other document's reference, or issue key
	Kind    core.Kind   `json:"kind,omitempty"`
	Title   string      `json:"title,omitempty"`
	Outside bool        `json:"outside,omitempty"`
	Key     string      `json:"key,omitempty"`    // with Status: the tracker key
	Status  core.Status `json:"status,omitempty"` // with Status: "" when not in the tracker
}

// The kinds of graph edges.
const (
	EdgeParent = "parent" // From is the parent (epic of a story, story of a sub-task)
	EdgeBlocks = "blocks" // From blocks To (To depends on From)
)

// GraphEdge is a parent link or a dependency.
type GraphEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`
}

// GraphResult is a document's graph, nodes in document order. The graph
// of a directory (several documents) names its documents in Documents
// (Document is empty then) and each item by its reference (doc/id), so a
// dependency between two of its documents joins their items.
type GraphResult struct {
	Document  string      `json:"document,omitempty"`
	Documents []string    `json:"documents,omitempty"`
	Nodes     []GraphNode `json:"nodes"`
	Edges     []GraphEdge `json:"edges"`
}

// DocumentGraph parses a planning document, or every planning document
// of a directory as `dwire import` reads it (ReadDocuments), and returns
// its graph (no tracker access).
func DocumentGraph(in GraphInput) (GraphResult, error) {
	data := in.Data
	if data == nil {
		if fi, err := os.Stat(in.Path); err == nil && fi.IsDir() {
			return directoryGraph(in.Path)
		}
		b, err := ReadDocument(in.Path)
		if err != nil {
			return GraphResult{}, err
		}
		data = b
	}
	doc, err := plan.Parse(filepath.Base(in.Path), data)
	if err != nil {
		return GraphResult{}, graphError(planError(err))
	}
	g := GraphResult{Document: doc.ID, Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	b, local := newGraphBuilder(&g), func(id string) string { return id }
	b.items(doc, local)
	b.links(doc, local)
	return g, nil
}

// graphError words a document's problems for a graph, which has no
// preview to run again.
func graphError(err error) error {
	e := *core.AsError(err)
	e.Message = strings.ReplaceAll(e.Message, plan.RunAgain, "draw the graph again")
	e.Details = slices.Clone(e.Details)
	for i := range e.Details {
		e.Details[i].Message = strings.ReplaceAll(e.Details[i].Message, plan.RunAgain, "draw the graph again")
	}
	return &e
}

// directoryGraph is the graph of every planning document under dir, each
// item named by its reference.
func directoryGraph(dir string) (GraphResult, error) {
	ds, err := ReadDocuments(dir)
	if err != nil {
		return GraphResult{}, err
	}
	set, err := plan.Options{}.ParseSet(ds.Files, ds.Skipped...)
	if err != nil {
		return GraphResult{}, graphError(planError(err))
	}
	g := GraphResult{Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	b := newGraphBuilder(&g)
	named := func(doc *plan.Document) func(string) string {
		return func(id string) string {
			if strings.Contains(id, "/") {
				return id // another document's item
			}
			return string(core.NewReference(doc.ID, id))
		}
	}
	for _, doc := range set.Documents {
		g.Documents = append(g.Documents, doc.ID)
		b.items(doc, named(doc))
	}
	for _, doc := range set.Documents {
		b.links(doc, named(doc))
	}
	return g, nil
}

// graphBuilder adds documents to a graph: first every document's items
// (items), then their parent links and dependencies (links), so an item
// of a set is never taken for an outside one. name is how a node is named
// (its local id in a single document's graph, its reference in a set's).
type graphBuilder struct {
	g    *GraphResult
	at   map[string]bool
	seen map[GraphEdge]bool
}

func newGraphBuilder(g *GraphResult) *graphBuilder {
	return &graphBuilder{g: g, at: map[string]bool{}, seen: map[GraphEdge]bool{}}
}

// items adds doc's items (its sub-tasks included), in document order.
func (b *graphBuilder) items(doc *plan.Document, name func(string) string) {
	for _, it := range withSubtasks(doc).Items {
		if id := name(it.ID); !b.at[id] {
			b.at[id] = true
			b.g.Nodes = append(b.g.Nodes, GraphNode{ID: id, Kind: core.Kind(it.Kind), Title: it.Title})
		}
	}
}

// links adds doc's parent links and dependencies; a dependency on an item
// the graph does not hold adds it as an outside node.
func (b *graphBuilder) links(doc *plan.Document, name func(string) string) {
	doc = withSubtasks(doc)
	g := b.g
	outside := func(id string) {
		if !b.at[id] {
			b.at[id] = true
			g.Nodes = append(g.Nodes, GraphNode{ID: id, Outside: true})
		}
	}
	edge := func(e GraphEdge) {
		if !b.seen[e] {
			b.seen[e] = true
			g.Edges = append(g.Edges, e)
		}
	}
	for _, it := range doc.Items {
		switch {
		case it.Epic != "":
			edge(GraphEdge{From: name(it.Epic), To: name(it.ID), Kind: EdgeParent})
		case it.Story != "":
			edge(GraphEdge{From: name(it.Story), To: name(it.ID), Kind: EdgeParent})
		}
	}
	target := func(l plan.Link) string {
		if l.Kind == plan.LinkKey {
			return l.Target // an issue in the tracker
		}
		return name(l.Target)
	}
	for _, it := range doc.Items {
		for _, l := range it.DependsOn {
			outside(target(l))
			edge(GraphEdge{From: target(l), To: name(it.ID), Kind: EdgeBlocks})
		}
		for _, l := range it.Blocks {
			outside(target(l))
			edge(GraphEdge{From: name(it.ID), To: target(l), Kind: EdgeBlocks})
		}
	}
}

// Graph is DocumentGraph with, when in.Status, each item's key and status
// read from the tracker (one lookup; it writes nothing).
func (s *WorkItemService) Graph(ctx context.Context, in GraphInput) (GraphResult, error) {
	ctx, o := s.begin(ctx, "graph")
	g, err := DocumentGraph(in)
	if err == nil && in.Status {
		err = s.graphStatus(ctx, &g)
	}
	if err != nil {
		return GraphResult{}, o.fail(err)
	}
	o.done("graph read", "document", g.Document, "nodes", len(g.Nodes))
	return g, nil
}

// reference is the reference of an item of the graph's documents.
func (g *GraphResult) reference(n GraphNode) core.Reference {
	if g.Document == "" { // a set's: named by its reference
		return core.Reference(n.ID)
	}
	return core.NewReference(g.Document, n.ID)
}

func (s *WorkItemService) graphStatus(ctx context.Context, g *GraphResult) error {
	var refs []core.Reference
	for _, n := range g.Nodes {
		switch {
		case !n.Outside:
			refs = append(refs, g.reference(n))
		case slices.Contains([]rune(n.ID), '/'):
			refs = append(refs, core.Reference(n.ID))
		}
	}
	idx, err := s.st.LookupIndex(ctx, s.p.Scope(), refs)
	if err != nil {
		return err
	}
	found, err := s.p.Lookup(ctx, refs, knownKeys(idx))
	if err != nil {
		return err
	}
	for i, n := range g.Nodes {
		ref := core.Reference(n.ID)
		if !n.Outside {
			ref = g.reference(n)
		}
		if w, ok := found[ref]; ok {
			g.Nodes[i].Key, g.Nodes[i].Status = w.Key, w.Status
			continue
		}
		if n.Outside && !slices.Contains([]rune(n.ID), '/') { // an issue key
			w, err := s.p.Get(ctx, n.ID)
			switch {
			case err == nil:
				g.Nodes[i].Key, g.Nodes[i].Status = w.Key, w.Status
			case core.ErrorCode(err) != core.CodeWorkItemNotFound:
				return err
			}
		}
	}
	return nil
}
