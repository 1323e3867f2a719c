package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/internal/jql"
)

// Search tuning: references per lookup query (bounded also by JQL length),
// issues per page, the most pages one search may read.
const (
	lookupBatch    = 100
	maxJQLLength   = 8000
	pageSize       = 100
	maxPages       = 1000
	maxReconcile   = 50 // Jira accepts at most 50 reconcileIssues ids
	defaultLimit   = 25
	maxQueryLimit  = 100
	searchEndpoint = "POST /rest/api/3/search/jql"
)

var issueKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*-[1-9][0-9]*$`)

// Check verifies credentials, the project permissions DevWorkWire needs,
// the project, the issue types and the reference field. Discovery runs
// again (it is cheap and Check is explicit).
func (p *Provider) Check(ctx context.Context) error {
	ctx, done := p.observe(ctx, "Check")
	defer done()
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/myself", endpoint: "GET /rest/api/3/myself", action: "read your Jira account"}, nil); err != nil {
		return err
	}
	if err := p.checkPermissions(ctx); err != nil {
		return err
	}
	m, err := p.discover(ctx)
	if err != nil {
		return err
	}
	p.metaMu.Lock()
	p.meta = m
	p.metaMu.Unlock()
	return nil
}

// requiredPermissions are the project permissions DevWorkWire uses, with
// what each is needed for.
var requiredPermissions = []struct{ key, name, use string }{
	{"BROWSE_PROJECTS", "Browse Projects", "find and read work items"},
	{"CREATE_ISSUES", "Create Issues", "create work items on import"},
	{"EDIT_ISSUES", "Edit Issues", "update work items on re-import"},
	{"TRANSITION_ISSUES", "Transition Issues", "change a work item's status"},
	{"ADD_COMMENTS", "Add Comments", "comment on work items"},
}

const permissionsEndpoint = "GET /rest/api/3/mypermissions"

// checkPermissions asks Jira which of requiredPermissions the account has
// in the project and reports the missing ones as JIRA_PERMISSION_DENIED,
// naming each permission and the project.
func (p *Provider) checkPermissions(ctx context.Context) error {
	keys := make([]string, len(requiredPermissions))
	for i, rp := range requiredPermissions {
		keys[i] = rp.key
	}
	var resp struct {
		Permissions map[string]struct {
			HavePermission *bool `json:"havePermission"`
		} `json:"permissions"`
	}
	q := url.Values{"projectKey": {p.cfg.Project}, "permissions": {strings.Join(keys, ",")}}
	if _, err := p.do(ctx, call{method: "GET", path: "/rest/api/3/mypermissions", query: q, endpoint: permissionsEndpoint, action: "read your permissions in project " + p.cfg.Project}, &resp); err != nil {
		return err
	}
	var missing []string
	var details []core.Detail
	for _, rp := range requiredPermissions {
		got, ok := resp.Permissions[rp.key]
		if ok && got.HavePermission != nil && *got.HavePermission {
			continue
		}
		missing = append(missing, fmt.Sprintf("%s (%s: to %s)", rp.key, rp.name, rp.use))
		details = append(details, core.Detail{Field: rp.key, Message: fmt.Sprintf("missing in project %s: needed to %s", p.cfg.Project, rp.use)})
	}
	if len(missing) == 0 {
		return nil
	}
	p.logFor(ctx).Warn("jira permissions missing", "project", p.cfg.Project, "missing", len(missing))
	return core.Errorf(core.CodeJiraPermissionDenied, "Your Jira account (%s) lacks %s in project %s: %s. Ask a Jira administrator of project %s to grant them (Project settings → Permissions).",
		p.cfg.Email, plural(len(missing), "this permission", "these permissions"), p.cfg.Project, strings.Join(missing, "; "), p.cfg.Project).WithDetails(details...)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

type searchRequest struct {
	JQL             string   `json:"jql"`
	Fields          []string `json:"fields"`
	Properties      []string `json:"properties"`
	MaxResults      int      `json:"maxResults"`
	NextPageToken   string   `json:"nextPageToken,omitempty"`
	ReconcileIssues []int64  `json:"reconcileIssues,omitempty"`
}

type searchResponse struct {
	Issues        []issue `json:"issues"`
	NextPageToken string  `json:"nextPageToken"`
	IsLast        *bool   `json:"isLast"`
}

// search runs a JQL search over every page, calling visit for each issue
// until it returns false.
func (p *Provider) search(ctx context.Context, m *meta, q string, reconcile []int64, action string, visit func(issue) bool) error {
	req := searchRequest{JQL: q, Fields: m.fieldsRequested(), Properties: []string{PropertyKey}, MaxResults: pageSize, ReconcileIssues: reconcile}
	seen := map[string]bool{}
	for page := 0; page < maxPages; page++ {
		var resp searchResponse
		if _, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/search/jql", body: req, class: retryIdempotent, endpoint: searchEndpoint, action: action}, &resp); err != nil {
			return err
		}
		for _, is := range resp.Issues {
			if !visit(is) {
				return nil
			}
		}
		last := resp.IsLast == nil || *resp.IsLast
		if resp.NextPageToken == "" || (last && resp.IsLast != nil) {
			return nil
		}
		if seen[resp.NextPageToken] {
			return core.Errorf(core.CodeInternal, "Jira returned the same page token twice while trying to %s; stopping instead of looping.", action)
		}
		seen[resp.NextPageToken] = true
		req.NextPageToken = resp.NextPageToken
	}
	return core.Errorf(core.CodeInternal, "The search to %s returned more than %d pages; narrow it down.", action, maxPages)
}

func (p *Provider) projectClause() string { return "project = " + jql.String(p.cfg.Project) }

// Lookup finds the items holding the given references: phrase searches on
// the reference field, batched, compared exactly; known keys missing from
// search (eventual consistency) are read by key.
func (p *Provider) Lookup(ctx context.Context, refs []core.Reference, known map[core.Reference]string) (map[core.Reference]core.WorkItem, error) {
	ctx, done := p.observe(ctx, "Lookup")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, err
	}
	out := map[core.Reference]core.WorkItem{}
	want := map[core.Reference]bool{}
	var uniq []core.Reference
	var searchable []core.Reference
	for _, r := range refs {
		if r != "" && !want[r] {
			want[r] = true
			uniq = append(uniq, r)
			// Text search finds only words: a reference without a letter or
			// digit cannot be searched for (only read by a known key).
			if hasWord(string(r)) {
				searchable = append(searchable, r)
			}
		}
	}
	if err := p.lookupBatches(ctx, m, p.batches(m, searchable), known, out); err != nil {
		return nil, err
	}
	var missing []core.Reference
	for _, r := range uniq {
		if _, ok := out[r]; !ok && known[r] != "" {
			missing = append(missing, r)
		}
	}
	if err := p.readKnown(ctx, m, missing, known, out); err != nil {
		return nil, err
	}
	if len(out) < len(uniq) {
		// Something will probably be created: check now that it can be,
		// so the preview (not the commit) reports a create screen
		// DevWorkWire cannot fill.
		if err := p.ensureCreatable(ctx, m); err != nil {
			return nil, err
		}
	}
	p.logFor(ctx).Info("jira lookup", "references", len(uniq), "found", len(out), "read_by_known_key", len(missing))
	return out, nil
}

// bulkFetchMax is Jira's limit of issues per POST /issue/bulkfetch.
const bulkFetchMax = 100

const bulkFetchEndpoint = "POST /rest/api/3/issue/bulkfetch"

type bulkFetchRequest struct {
	IssueIdsOrKeys []string `json:"issueIdsOrKeys"`
	Fields         []string `json:"fields"`
	Properties     []string `json:"properties"`
}

type bulkFetchResponse struct {
	Issues      []issue `json:"issues"`
	IssueErrors []struct {
		ID           string `json:"id"`
		ErrorMessage string `json:"errorMessage"`
	} `json:"issueErrors"`
}

// readKnown reads items by the keys the dedup index knows (search has not
// caught up with them) with POST /issue/bulkfetch, 100 keys a request and
// knownReaders requests at once, and keeps those whose reference still
// matches. Bulk fetch reads the issues themselves, not the search index,
// so it is not subject to search lag. Keys Jira does not return are
// deleted or invisible (skipped); keys it reports in issueErrors are read
// one by one. If the site has no bulk fetch (404), every key is read one
// by one.
func (p *Provider) readKnown(ctx context.Context, m *meta, refs []core.Reference, known map[core.Reference]string, out map[core.Reference]core.WorkItem) error {
	byKey := map[string][]core.Reference{}
	var keys []string
	for _, r := range refs {
		k := strings.ToUpper(known[r])
		if !issueKeyRE.MatchString(k) {
			continue // not an issue key: nothing to read (as Get would say)
		}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	if len(keys) == 0 {
		return nil
	}
	var batches [][]string
	for len(keys) > 0 {
		n := min(bulkFetchMax, len(keys))
		batches = append(batches, keys[:n])
		keys = keys[n:]
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		retry    []core.Reference // to read one by one
		wg       sync.WaitGroup
	)
	next := make(chan []string)
	for range min(knownReaders, len(batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range next {
				var resp bulkFetchResponse
				req := bulkFetchRequest{IssueIdsOrKeys: batch, Fields: m.fieldsRequested(), Properties: []string{PropertyKey}}
				r, err := p.do(ctx, call{method: "POST", path: "/rest/api/3/issue/bulkfetch", body: req, class: retryIdempotent, endpoint: bulkFetchEndpoint, action: "read work items by their known keys"}, &resp)
				mu.Lock()
				switch {
				case err != nil && r != nil && r.status == http.StatusNotFound:
					// No bulk fetch on this site: read the batch by key.
					for _, k := range batch {
						retry = append(retry, byKey[k]...)
					}
				case err != nil:
					if firstErr == nil {
						firstErr = err
						cancel()
					}
				default:
					missed := p.matchFetched(m, batch, byKey, resp.Issues, out)
					if len(resp.IssueErrors) > 0 {
						p.logFor(ctx).Warn("jira bulk fetch could not return some issues; reading them one by one", "issue_errors", len(resp.IssueErrors))
						retry = append(retry, missed...)
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, b := range batches {
		select {
		case next <- b:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return p.readByKey(ctx, retry, known, out)
}

// matchFetched keeps each fetched issue whose reference is the one the
// index holds for its key; an issue returned under another key (moved) is
// kept when it holds a reference whose known key Jira did not return. It
// returns the references not found.
func (p *Provider) matchFetched(m *meta, batch []string, byKey map[string][]core.Reference, issues []issue, out map[core.Reference]core.WorkItem) []core.Reference {
	returned := map[string]bool{}
	for _, is := range issues {
		returned[strings.ToUpper(is.Key)] = true
	}
	inBatch := map[core.Reference]string{}
	for _, k := range batch {
		for _, r := range byKey[k] {
			inBatch[r] = k
		}
	}
	for _, is := range issues {
		w := p.workItem(m, is)
		k := strings.ToUpper(is.Key)
		if slices.Contains(byKey[k], w.Reference) {
			out[w.Reference] = w
			continue
		}
		if want, ok := inBatch[w.Reference]; ok && !returned[want] {
			if _, done := out[w.Reference]; !done {
				out[w.Reference] = w
			}
		}
	}
	var missed []core.Reference
	for _, k := range batch {
		for _, r := range byKey[k] {
			if _, ok := out[r]; !ok && !returned[k] {
				missed = append(missed, r)
			}
		}
	}
	return missed
}

// knownReaders is how many read requests for known keys Lookup has in
// flight at once: reads only, few enough to stay polite to Jira's rate
// limits.
const knownReaders = 4

// readByKey reads items one GET at a time (knownReaders at once) and keeps
// those whose reference still matches. It is readKnown's fallback when
// bulk fetch is unavailable or could not return some issues.
func (p *Provider) readByKey(ctx context.Context, refs []core.Reference, known map[core.Reference]string, out map[core.Reference]core.WorkItem) error {
	if len(refs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	next := make(chan core.Reference)
	for range min(knownReaders, len(refs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				w, err := p.Get(ctx, known[r])
				mu.Lock()
				switch core.ErrorCode(err) {
				case "":
					if w.Reference == r {
						out[r] = w
					}
				case core.CodeWorkItemNotFound:
				default:
					if firstErr == nil {
						firstErr = err
						cancel()
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, r := range refs {
		select {
		case next <- r:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return firstErr
}

// batches splits references into groups whose JQL stays short.
func (p *Provider) batches(m *meta, refs []core.Reference) [][]core.Reference {
	var out [][]core.Reference
	var cur []core.Reference
	size := 0
	for _, r := range refs {
		l := len(m.refClause) + len(jql.Phrase(string(r))) + 8
		if len(cur) > 0 && (len(cur) >= lookupBatch || size+l > maxJQLLength) {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, r)
		size += l
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func (p *Provider) refsJQL(m *meta, refs []core.Reference) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = m.refClause + " ~ " + jql.Phrase(string(r))
	}
	return p.projectClause() + " AND (" + strings.Join(parts, " OR ") + ")"
}

func (p *Provider) reconcileIDs(refs []core.Reference) []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []int64
	for _, r := range refs {
		if id, ok := p.created[r]; ok && len(ids) < maxReconcile {
			ids = append(ids, id)
		}
	}
	return ids
}

// lookupReaders is how many lookup searches run at once: reads only, few
// enough to stay polite to Jira's rate limits. Round trips, not requests,
// are what a large preview waits for.
const lookupReaders = 4

// lookupBatches runs the lookup searches, lookupReaders at a time. Batches
// hold disjoint references and a batch keeps only its own references, so
// each fills its own map and the maps are merged in batch order. The first
// failure cancels the searches not yet finished and is returned.
func (p *Provider) lookupBatches(ctx context.Context, m *meta, batches [][]core.Reference, known map[core.Reference]string, out map[core.Reference]core.WorkItem) error {
	if len(batches) <= 1 {
		for _, batch := range batches {
			if err := p.lookupBatch(ctx, m, batch, known, out); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]map[core.Reference]core.WorkItem, len(batches))
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	sem := make(chan struct{}, lookupReaders)
	for i, batch := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			res := map[core.Reference]core.WorkItem{}
			if err := p.lookupBatch(ctx, m, batch, known, res); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel()
				return
			}
			results[i] = res
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, res := range results {
		for r, w := range res {
			out[r] = w
		}
	}
	return nil
}

func (p *Provider) lookupBatch(ctx context.Context, m *meta, batch []core.Reference, known map[core.Reference]string, out map[core.Reference]core.WorkItem) error {
	want := make(map[core.Reference]bool, len(batch))
	for _, r := range batch {
		want[r] = true
	}
	return p.search(ctx, m, p.refsJQL(m, batch), p.reconcileIDs(batch), "look up work items by reference", func(is issue) bool {
		w := p.workItem(m, is)
		if !want[w.Reference] {
			return true // a tokenised match of another reference
		}
		if prev, dup := out[w.Reference]; dup {
			// Two issues hold one reference (made outside DevWorkWire or
			// before it existed): keep the one the index knows, else the
			// oldest, and say so.
			p.logFor(ctx).Warn("jira reference held by more than one issue", "reference", string(w.Reference), "keys", prev.Key+","+w.Key)
			if known[w.Reference] != w.Key && (known[w.Reference] == prev.Key || keyNumber(prev.Key) < keyNumber(w.Key)) {
				return true
			}
		}
		out[w.Reference] = w
		return true
	})
}

func keyNumber(k string) int {
	_, n, _ := strings.Cut(k, "-")
	i, _ := strconv.Atoi(n)
	return i
}

func (p *Provider) checkKey(key string) error {
	if !issueKeyRE.MatchString(key) {
		return core.Errorf(core.CodeWorkItemNotFound, "%q is not a Jira issue key (like %s-12). Check the key.", key, p.cfg.Project).WithDetails(core.Detail{Key: key, Message: "not an issue key"})
	}
	return nil
}

func issuePath(key string) string { return "/rest/api/3/issue/" + url.PathEscape(key) }

// Get returns one item by key.
func (p *Provider) Get(ctx context.Context, key string) (core.WorkItem, error) {
	ctx, done := p.observe(ctx, "Get")
	defer done()
	if err := p.checkKey(key); err != nil {
		return core.WorkItem{}, err
	}
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return core.WorkItem{}, err
	}
	var is issue
	q := url.Values{"fields": {strings.Join(m.fieldsRequested(), ",")}, "properties": {PropertyKey}}
	if _, err := p.do(ctx, call{method: "GET", path: issuePath(key), query: q, endpoint: "GET /rest/api/3/issue/{key}", action: "read issue " + key, key: key}, &is); err != nil {
		return core.WorkItem{}, err
	}
	return p.workItem(m, is), nil
}

// Query returns up to f.Limit items matching f, and whether more matched.
func (p *Provider) Query(ctx context.Context, f core.Filter) ([]core.WorkItem, bool, error) {
	ctx, done := p.observe(ctx, "Query")
	defer done()
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, false, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxQueryLimit)
	clauses := []string{p.projectClause(), "issuetype in " + jql.List(m.typeNames)}
	status := f.Status
	if f.Ready {
		if status != "" && status != core.StatusTodo {
			return []core.WorkItem{}, false, nil
		}
		status = core.StatusTodo
	}
	if status != "" {
		if !status.Valid() {
			return nil, false, core.Errorf(core.CodeValidationFailed, "%q is not a status; use todo, in_progress or done.", status).WithDetails(core.Detail{Field: "status"})
		}
		// The category names are what Jira's JQL documentation uses.
		clauses = append(clauses, "statusCategory = "+jql.String(map[core.Status]string{core.StatusTodo: "To Do", core.StatusInProgress: "In Progress", core.StatusDone: "Done"}[status]))
	}
	if f.EpicKey != "" {
		if err := p.checkKey(f.EpicKey); err != nil {
			return nil, false, err
		}
		clauses = append(clauses, "parent = "+jql.String(f.EpicKey))
	}
	if f.Document != "" {
		if !hasWord(f.Document) {
			return []core.WorkItem{}, false, nil // no reference can belong to it
		}
		clauses = append(clauses, m.refClause+" ~ "+jql.Phrase(f.Document))
	}
	if strings.TrimSpace(f.Text) != "" {
		t := jql.Terms(f.Text)
		clauses = append(clauses, "(summary ~ "+t+" OR description ~ "+t+")")
	}
	q := strings.Join(clauses, " AND ") + " ORDER BY key ASC"
	items := []core.WorkItem{}
	truncated := false
	err = p.search(ctx, m, q, nil, "query work items", func(is issue) bool {
		w := p.workItem(m, is)
		if f.Document != "" && !strings.HasPrefix(string(w.Reference), f.Document+"/") {
			return true
		}
		if status != "" && w.Status != status {
			return true
		}
		if f.EpicKey != "" && w.ParentKey != f.EpicKey {
			return true
		}
		if f.Ready {
			for _, b := range w.BlockedBy {
				if b.Status != core.StatusDone {
					return true
				}
			}
		}
		if len(items) == limit {
			truncated = true
			return false
		}
		items = append(items, w)
		return true
	})
	if err != nil {
		return nil, false, err
	}
	return items, truncated, nil
}

type editRequest struct {
	Fields     map[string]any   `json:"fields"`
	Properties []map[string]any `json:"properties,omitempty"`
}

// Update rewrites the item's content and its stored digest in one request.
func (p *Provider) Update(ctx context.Context, key string, spec core.ItemSpec) error {
	ctx, done := p.observe(ctx, "Update")
	defer done()
	if err := p.checkKey(key); err != nil {
		return err
	}
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return err
	}
	fields, props, err := p.writeFields(m, spec, false)
	if err != nil {
		return err
	}
	_, err = p.do(ctx, call{method: "PUT", path: issuePath(key), body: editRequest{Fields: fields, Properties: props}, class: retryIdempotent, endpoint: "PUT /rest/api/3/issue/{key}", action: "edit issue " + key, key: key}, nil)
	if err != nil {
		var u *uncertainError
		if ok := asUncertain(err, &u); ok {
			return core.MarkOutcomeUnknown(u.err)
		}
		return itemErr(err, spec.Reference, key)
	}
	p.logFor(ctx).Debug("jira issue edited", "key", key, "reference", string(spec.Reference))
	return nil
}

// transitionJSON is one transition as Jira lists it.
type transitionJSON struct {
	ID   string     `json:"id"`
	Name string     `json:"name"`
	To   statusJSON `json:"to"`
}

func (p *Provider) listTransitions(ctx context.Context, key string) ([]transitionJSON, error) {
	if err := p.checkKey(key); err != nil {
		return nil, err
	}
	var resp struct {
		Transitions []transitionJSON `json:"transitions"`
	}
	if _, err := p.do(ctx, call{method: "GET", path: issuePath(key) + "/transitions", endpoint: "GET /rest/api/3/issue/{key}/transitions", action: "list the transitions of issue " + key, key: key}, &resp); err != nil {
		return nil, err
	}
	return resp.Transitions, nil
}

// Transitions lists the workflow transitions available on the item now.
func (p *Provider) Transitions(ctx context.Context, key string) ([]core.Transition, error) {
	ctx, done := p.observe(ctx, "Transitions")
	defer done()
	ts, err := p.listTransitions(ctx, key)
	if err != nil {
		return nil, err
	}
	out := make([]core.Transition, 0, len(ts))
	for _, t := range ts {
		out = append(out, core.Transition{ID: t.ID, Name: t.Name, To: mapCategory(t.To.StatusCategory.Key), ToName: t.To.Name})
	}
	return out, nil
}

// Transition moves the item through the transition with the given id.
//
// It first reads the transitions available now (an unavailable id is
// VALIDATION_FAILED without sending anything) to learn the target status.
// The POST is retried only when Jira refused it with 429 (nothing was
// done). After a 5xx, a reset or a timeout the transition may or may not
// have happened: the item's status is read back, and the call succeeds if
// the item is in the target status, else fails with JIRA_UNAVAILABLE — it
// is never resent blindly.
func (p *Provider) Transition(ctx context.Context, key, transitionID string) error {
	ctx, done := p.observe(ctx, "Transition")
	defer done()
	if err := p.checkKey(key); err != nil {
		return err
	}
	unavailable := func(cause error) error {
		return core.Wrap(cause, core.CodeValidationFailed, "Transition %s is not available on %s now (its status may have changed). Run the progress preview again to see the current transitions.", transitionID, key).WithDetails(core.Detail{Key: key, Field: "transition"})
	}
	ts, err := p.listTransitions(ctx, key)
	if err != nil {
		return err
	}
	var target *statusJSON
	for _, t := range ts {
		if t.ID == transitionID {
			target = &t.To
			break
		}
	}
	if target == nil {
		return unavailable(nil)
	}
	body := map[string]any{"transition": map[string]string{"id": transitionID}}
	_, err = p.do(ctx, call{method: "POST", path: issuePath(key) + "/transitions", body: body, class: retryRejected, endpoint: "POST /rest/api/3/issue/{key}/transitions", action: "transition issue " + key, key: key}, nil)
	if err == nil {
		return nil
	}
	var u *uncertainError
	if asUncertain(err, &u) {
		var is issue
		q := url.Values{"fields": {"status"}}
		if _, gerr := p.do(context.WithoutCancel(ctx), call{method: "GET", path: issuePath(key), query: q, endpoint: "GET /rest/api/3/issue/{key}", action: "read the status of issue " + key, key: key}, &is); gerr == nil && target.Name != "" && is.status().Name == target.Name {
			p.logFor(ctx).Info("jira transition outcome resolved", "key", key, "applied", true)
			return nil
		}
		p.logFor(ctx).Warn("jira transition outcome unknown", "key", key)
		return core.MarkOutcomeUnknown(u.err)
	}
	if core.ErrorCode(err) == core.CodeValidationFailed {
		return unavailable(err)
	}
	return err
}

// AddComment adds a Markdown comment, converted to ADF. Like Transition,
// it is resent only after a 429. After a 5xx, a reset or a timeout the
// item's recent comments are read back: a comment with the same content,
// created in the last few minutes by Jira's clock, means it was added;
// otherwise the call fails with JIRA_UNAVAILABLE (and was not added, as far
// as Jira shows).
func (p *Provider) AddComment(ctx context.Context, key, markdown string) error {
	ctx, done := p.observe(ctx, "AddComment")
	defer done()
	if err := p.checkKey(key); err != nil {
		return err
	}
	if strings.TrimSpace(markdown) == "" {
		return core.Errorf(core.CodeValidationFailed, "The comment for %s is empty. Write some text.", key).WithDetails(core.Detail{Key: key, Field: "comment"})
	}
	body, err := toADF(markdown)
	if err != nil {
		return core.Wrap(err, core.CodeValidationFailed, "The comment for %s could not be converted to Jira's document format. Simplify its Markdown.", key).WithDetails(core.Detail{Key: key, Field: "comment"})
	}
	_, err = p.do(ctx, call{method: "POST", path: issuePath(key) + "/comment", body: map[string]any{"body": body}, class: retryRejected, endpoint: "POST /rest/api/3/issue/{key}/comment", action: "comment on issue " + key, key: key}, nil)
	if err == nil {
		return nil
	}
	var u *uncertainError
	if asUncertain(err, &u) {
		if p.commentLanded(context.WithoutCancel(ctx), key, fromADF(body)) {
			p.logFor(ctx).Info("jira comment outcome resolved", "key", key, "applied", true)
			return nil
		}
		p.logFor(ctx).Warn("jira comment outcome unknown", "key", key)
		return core.MarkOutcomeUnknown(u.err)
	}
	return err
}

// recentComment bounds how old (by Jira's clock) a comment found after an
// uncertain AddComment may be to count as the one just sent.
const recentComment = 5 * time.Minute

// commentLanded reports whether the issue has a recent comment whose
// content equals want (canonical Markdown).
func (p *Provider) commentLanded(ctx context.Context, key, want string) bool {
	var resp struct {
		Comments []struct {
			Body    json.RawMessage `json:"body"`
			Created string          `json:"created"`
		} `json:"comments"`
	}
	q := url.Values{"orderBy": {"-created"}, "maxResults": {"100"}}
	r, err := p.do(ctx, call{method: "GET", path: issuePath(key) + "/comment", query: q, endpoint: "GET /rest/api/3/issue/{key}/comment", action: "read the comments of issue " + key, key: key}, &resp)
	if err != nil || r == nil {
		return false
	}
	now, err := http.ParseTime(r.header.Get("Date"))
	if err != nil {
		return false // without Jira's clock, recency cannot be judged
	}
	for _, c := range resp.Comments {
		created, ok := parseJiraTime(c.Created)
		if !ok || now.Sub(created) > recentComment {
			continue
		}
		if fromADF(c.Body) == want {
			return true
		}
	}
	return false
}

func asUncertain(err error, u **uncertainError) bool {
	if e, ok := err.(*uncertainError); ok {
		*u = e
		return true
	}
	return false
}

// itemErr adds the item to a write error's details.
func itemErr(err error, ref core.Reference, key string) error {
	e := core.AsError(err)
	if len(e.Details) == 0 || e.Code == core.CodeValidationFailed {
		for i := range e.Details {
			e.Details[i].Item, e.Details[i].Key = string(ref), key
		}
		if len(e.Details) == 0 {
			e.Details = []core.Detail{{Item: string(ref), Key: key, Message: e.Message}}
		}
	}
	return e
}

// hasWord reports whether s holds a letter or digit, something Jira's
// text search can match.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
