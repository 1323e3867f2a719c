package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/devworkwire/devworkwire/core"
)

// A plan's structure in Jira (core.StructureProvider): sub-tasks (the
// project's sub-task issue type), dependencies ("Blocks" issue links) and,
// in agile.go, sprints and rank (the Jira Software Agile API).
//
// Direction. Atlassian's issue linking model
// (https://developer.atlassian.com/cloud/jira/platform/issue-linking-model/)
// labels a link on its source issue with the type's outward description
// ("blocks") and on its destination with the inward one ("is blocked by");
// POST /rest/api/3/issueLink takes the source as inwardIssue. So "B is
// blocked by A" (B depends on A) is {"type":{"name":"Blocks"},
// "inwardIssue":A, "outwardIssue":B}, and GET B lists it with inwardIssue
// A, GET A with outwardIssue B. TestDependsOnDirection pins this.

var _ core.StructureProvider = (*Provider)(nil)

// Custom field types of Jira Software's Sprint and Rank fields.
const (
	sprintFieldType = "com.pyxis.greenhopper.jira:gh-sprint"
	rankFieldType   = "com.pyxis.greenhopper.jira:gh-lexo-rank"
	// blocksLinkType is the name of Jira's default "Blocks" link type.
	blocksLinkType = "Blocks"
)

// structureMeta is what discovery learnt about sub-tasks, sprints and rank
// (any may be missing: then the feature is refused when a plan uses it).
type structureMeta struct {
	subtaskTypeID, subtaskTypeName string
	sprintField, rankField         string
	// subtaskCreatePending is set while the sub-task type's create fields
	// have not been checked (guarded by Provider.metaMu): checked like the
	// epic's and story's, but only once a plan has sub-tasks.
	subtaskCreatePending bool
}

// discoverStructure finds the sub-task type (the configured name, else the
// project's first sub-task type) and the Sprint and Rank fields. It adds
// the sub-task type to the types DevWorkWire searches.
func (p *Provider) discoverStructure(m *meta, fields []fieldDetails, types createMetaTypes) {
	want := p.cfg.SubtaskType
	for _, t := range types.IssueTypes {
		if t.Subtask && (want == "" || strings.EqualFold(t.Name, want)) {
			m.structure.subtaskTypeID, m.structure.subtaskTypeName = t.ID, t.Name
			m.structure.subtaskCreatePending = true
			m.typeNames, m.typeIDs = append(m.typeNames, t.Name), append(m.typeIDs, t.ID)
			break
		}
	}
	for _, f := range fields {
		switch {
		case f.Schema.Custom == sprintFieldType && m.structure.sprintField == "":
			m.structure.sprintField = f.ID
		case f.Schema.Custom == rankFieldType && m.structure.rankField == "":
			m.structure.rankField = f.ID
		}
	}
}

// structureFields are the fields reads ask for beyond the content.
func (m *meta) structureFields() []string {
	f := []string{"subtasks"}
	if m.structure.sprintField != "" {
		f = append(f, m.structure.sprintField)
	}
	if m.structure.rankField != "" {
		f = append(f, m.structure.rankField)
	}
	return f
}

type sprintValue struct {
	ID    json.Number `json:"id"`
	Name  string      `json:"name"`
	State string      `json:"state"`
}

// readStructure fills the item's kind (sub-task), dependencies both ways,
// sub-tasks, sprint and rank from an issue, and returns what of them the
// fingerprint must cover.
func (m *meta) readStructure(is issue, w *core.WorkItem) string {
	if m.structure.subtaskTypeID != "" && is.typeID() == m.structure.subtaskTypeID {
		w.Kind = core.KindSubtask
	}
	var links []linkJSON
	_ = json.Unmarshal(is.Fields["issuelinks"], &links)
	var fp []string
	for _, l := range links {
		if !isBlocks(l) {
			continue
		}
		switch {
		case l.InwardIssue != nil: // this issue "is blocked by" it
			w.BlockedBy = append(w.BlockedBy, core.Linked{Key: l.InwardIssue.Key, Title: l.InwardIssue.Fields.Summary, Status: mapCategory(l.InwardIssue.Fields.Status.StatusCategory.Key)})
			fp = append(fp, "<"+l.ID+":"+l.InwardIssue.Key)
		case l.OutwardIssue != nil: // this issue "blocks" it
			w.Blocks = append(w.Blocks, core.Linked{Key: l.OutwardIssue.Key, Title: l.OutwardIssue.Fields.Summary, Status: mapCategory(l.OutwardIssue.Fields.Status.StatusCategory.Key)})
			fp = append(fp, ">"+l.ID+":"+l.OutwardIssue.Key)
		}
	}
	var subs []issueRef
	_ = json.Unmarshal(is.Fields["subtasks"], &subs)
	for _, s := range subs {
		w.Subtasks = append(w.Subtasks, core.Linked{Key: s.Key, Title: s.Fields.Summary, Status: mapCategory(s.Fields.Status.StatusCategory.Key)})
	}
	if f := m.structure.sprintField; f != "" {
		var sps []sprintValue
		_ = json.Unmarshal(is.Fields[f], &sps)
		// An issue carries its closed sprints too: the one that is not
		// closed is where it is now, else the last.
		for _, sp := range sps {
			if sp.State != core.SprintClosed || w.Sprint == "" {
				w.Sprint = sp.Name
			}
		}
	}
	if f := m.structure.rankField; f != "" {
		w.Rank = is.str(f)
	}
	sort.Strings(fp)
	return strings.Join(fp, ",") + "\x00" + w.Sprint + "\x00" + w.Rank
}

// isBlocks reports whether a link is of the "Blocks" type (by name, or by
// its descriptions on sites that renamed it).
func isBlocks(l linkJSON) bool {
	return strings.EqualFold(l.Type.Name, blocksLinkType) || strings.EqualFold(l.Type.Inward, blocksInward) || strings.EqualFold(l.Type.Outward, blocksOutward)
}

// The descriptions of Jira's Blocks link type, which a site that renamed
// the type usually keeps.
const (
	blocksInward  = "is blocked by"
	blocksOutward = "blocks"
)

// blocksType is how a link request names the Blocks type: by the id
// found in GET /issueLinkType once the name was refused (a renamed type),
// else by its name.
func (p *Provider) blocksType() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.blocksID != "" {
		return map[string]string{"id": p.blocksID}
	}
	return map[string]string{"name": blocksLinkType}
}

// findBlocksType reads the site's link types (GET /issueLinkType) and
// records the id of the one whose descriptions are Blocks' ("blocks" /
// "is blocked by"): a site that renamed the type. ok is false when there
// is none (or its name is still Blocks: nothing to retry).
func (p *Provider) findBlocksType(ctx context.Context) (ok bool, err error) {
	var resp struct {
		IssueLinkTypes []struct {
			ID      string `json:"id"`
			Name    string `json:"name"`
			Inward  string `json:"inward"`
			Outward string `json:"outward"`
		} `json:"issueLinkTypes"`
	}
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/issueLinkType", endpoint: "GET /rest/api/3/issueLinkType", action: "list the issue link types"}, &resp); err != nil {
		return false, err
	}
	for _, t := range resp.IssueLinkTypes {
		if strings.EqualFold(t.Inward, blocksInward) && strings.EqualFold(t.Outward, blocksOutward) && !strings.EqualFold(t.Name, blocksLinkType) {
			p.mu.Lock()
			p.blocksID = t.ID
			p.mu.Unlock()
			return true, nil
		}
	}
	return false, nil
}

// SubtaskType is the name of the sub-task issue type discovery found (""
// before discovery, or when the project has none).
func (p *Provider) SubtaskType() string {
	p.metaMu.Lock()
	defer p.metaMu.Unlock()
	if p.meta == nil {
		return ""
	}
	return p.meta.structure.subtaskTypeName
}

// CheckSubtasks verifies that the project has a sub-task issue type.
func (p *Provider) CheckSubtasks(ctx context.Context) error {
	ctx, done := p.observe(ctx, "CheckSubtasks")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return err
	}
	if m.structure.subtaskTypeID == "" {
		what := "has no sub-task issue type"
		if p.cfg.SubtaskType != "" {
			what = fmt.Sprintf("has no sub-task issue type named %q", p.cfg.SubtaskType)
		}
		return field("jira.issue_types.subtask", core.CodeConfigInvalid, fmt.Sprintf("Project %s %s, so the document's sub-tasks cannot be created. Add a sub-task type to the project's issue type scheme in Jira (or set jira.issue_types.subtask to the name of the one to use), or write the sub-tasks as stories.", p.cfg.Project, what))
	}
	return p.ensureSubtaskCreatable(ctx, m)
}

// ensureSubtaskCreatable checks the sub-task type's create fields once per
// discovery, as ensureCreatable does the epic's and story's: the reference
// field on its screen, no required field DevWorkWire does not fill; and
// it records which fields the screen has (ResolveFields checks a
// sub-task's fields against it).
func (p *Provider) ensureSubtaskCreatable(ctx context.Context, m *meta) error {
	return p.checkOnce(&m.structure.subtaskCreatePending, func() error {
		return p.checkCreateFields(ctx, m, m.structure.subtaskTypeID, m.structure.subtaskTypeName)
	})
}

type linkRequest struct {
	Type         map[string]string `json:"type"`
	InwardIssue  map[string]string `json:"inwardIssue"`
	OutwardIssue map[string]string `json:"outwardIssue"`
}

// AddDependency makes blocked "is blocked by" blocker: a Blocks link whose
// source (inwardIssue) is the blocker. Jira answers without the link's id;
// Dependencies reads it. Sent once: an unanswered request is unknown.
func (p *Provider) AddDependency(ctx context.Context, blocked, blocker string) error {
	ctx, done := p.observe(ctx, "AddDependency")
	defer done()
	for _, k := range []string{blocked, blocker} {
		if err := p.checkKey(k); err != nil {
			return err
		}
	}
	send := func() (*response, error) {
		body := linkRequest{Type: p.blocksType(), InwardIssue: map[string]string{"key": blocker}, OutwardIssue: map[string]string{"key": blocked}}
		return p.do(ctx, call{method: "POST", path: "/rest/api/3/issueLink", body: body, class: retryRejected, endpoint: "POST /rest/api/3/issueLink",
			action: fmt.Sprintf("link %s (is blocked by) %s", blocked, blocker), key: blocked + " or " + blocker}, nil)
	}
	resp, err := send()
	if resp != nil && resp.status == http.StatusNotFound && p.blocksType()["name"] != "" {
		// Perhaps the type was renamed ("No issue link type with name
		// 'Blocks' found."): nothing was linked; find it by its
		// descriptions and send again by id.
		if renamed, ferr := p.findBlocksType(ctx); ferr != nil {
			return ferr
		} else if renamed {
			_, err = send()
		}
	}
	return structureWriteErr(err)
}

// RemoveDependency deletes the link with this id.
func (p *Provider) RemoveDependency(ctx context.Context, id string) error {
	ctx, done := p.observe(ctx, "RemoveDependency")
	defer done()
	_, err := p.do(ctx, call{method: "DELETE", path: "/rest/api/3/issueLink/" + url.PathEscape(id), class: retryRejected, endpoint: "DELETE /rest/api/3/issueLink/{id}",
		action: "remove issue link " + id, key: "link " + id}, nil)
	return structureWriteErr(err)
}

// structureWriteErr marks a write that was sent but not answered.
func structureWriteErr(err error) error {
	if err == nil {
		return nil
	}
	var u *uncertainError
	if asUncertain(err, &u) {
		return core.MarkOutcomeUnknown(u.err)
	}
	return err
}

// Dependencies reads the Blocks links of keys (either end) with bulk
// fetch, 100 keys a request: the issues themselves, not the search index.
func (p *Provider) Dependencies(ctx context.Context, keys []string) ([]core.Dependency, error) {
	ctx, done := p.observe(ctx, "Dependencies")
	defer done()
	var out []core.Dependency
	seen := map[string]bool{}
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	for start := 0; start < len(keys); start += bulkFetchMax {
		batch := keys[start:min(start+bulkFetchMax, len(keys))]
		var resp bulkFetchResponse
		req := bulkFetchRequest{IssueIdsOrKeys: batch, Fields: []string{"issuelinks"}, Properties: []string{}}
		if _, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/issue/bulkfetch", body: req, class: retryIdempotent, endpoint: bulkFetchEndpoint, action: "read the dependencies of work items"}, &resp); err != nil {
			return nil, err
		}
		for _, is := range resp.Issues {
			var links []linkJSON
			_ = json.Unmarshal(is.Fields["issuelinks"], &links)
			for _, l := range links {
				if !isBlocks(l) || seen[l.ID] {
					continue
				}
				switch {
				case l.InwardIssue != nil:
					out = append(out, core.Dependency{ID: l.ID, Blocker: l.InwardIssue.Key, Blocked: is.Key})
				case l.OutwardIssue != nil:
					out = append(out, core.Dependency{ID: l.ID, Blocker: is.Key, Blocked: l.OutwardIssue.Key})
				default:
					continue
				}
				seen[l.ID] = true
			}
		}
	}
	return out, nil
}
