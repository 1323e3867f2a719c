package service

import (
	"context"
	"path/filepath"
	"slices"

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

// GraphResult is a document's graph, nodes in document order.
type GraphResult struct {
	Document string      `json:"document"`
	Nodes    []GraphNode `json:"nodes"`
	Edges    []GraphEdge `json:"edges"`
}

// DocumentGraph parses a planning document and returns its graph (no
// tracker access).
func DocumentGraph(in GraphInput) (GraphResult, error) {
	data := in.Data
	if data == nil {
		b, err := ReadDocument(in.Path)
		if err != nil {
			return GraphResult{}, err
		}
		data = b
	}
	doc, err := plan.Parse(filepath.Base(in.Path), data)
	if err != nil {
		return GraphResult{}, planError(err)
	}
	doc = withSubtasks(doc)
	g := GraphResult{Document: doc.ID, Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	byID := map[string]bool{}
	for _, it := range doc.Items {
		g.Nodes = append(g.Nodes, GraphNode{ID: it.ID, Kind: core.Kind(it.Kind), Title: it.Title})
		byID[it.ID] = true
	}
	outside := func(id string) {
		if !byID[id] {
			byID[id] = true
			g.Nodes = append(g.Nodes, GraphNode{ID: id, Outside: true})
		}
	}
	seen := map[GraphEdge]bool{}
	edge := func(e GraphEdge) {
		if !seen[e] {
			seen[e] = true
			g.Edges = append(g.Edges, e)
		}
	}
	for _, it := range doc.Items {
		switch {
		case it.Epic != "":
			edge(GraphEdge{From: it.Epic, To: it.ID, Kind: EdgeParent})
		case it.Story != "":
			edge(GraphEdge{From: it.Story, To: it.ID, Kind: EdgeParent})
		}
	}
	for _, it := range doc.Items {
		for _, l := range it.DependsOn {
			outside(l.Target)
			edge(GraphEdge{From: l.Target, To: it.ID, Kind: EdgeBlocks})
		}
		for _, l := range it.Blocks {
			outside(l.Target)
			edge(GraphEdge{From: it.ID, To: l.Target, Kind: EdgeBlocks})
		}
	}
	return g, nil
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

func (s *WorkItemService) graphStatus(ctx context.Context, g *GraphResult) error {
	var refs []core.Reference
	for _, n := range g.Nodes {
		switch {
		case !n.Outside:
			refs = append(refs, core.NewReference(g.Document, n.ID))
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
			ref = core.NewReference(g.Document, n.ID)
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
