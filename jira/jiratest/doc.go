// Package jiratest is a fake Jira Cloud site (REST API v3) for tests, the
// end-to-end suite and the demo: an http.Handler (Start runs it on a
// loopback httptest server; cmd/mockjira runs it as a process). It is meant
// to be no kinder than Jira, so that clients that would create duplicates
// or lose writes against the real thing fail against it too.
//
// Modelled:
//   - Basic auth with one user (e-mail + API token); 401 otherwise. The
//     scoped-token gateway path /ex/jira/{cloudId}/... is served under the
//     site's CloudID only (another id: 404), which GET /_edge/tenant_info
//     gives without credentials; the gateway's scope checks are not
//     modelled.
//   - Projects with keys (Options.Project "DEMO,OTHER" makes several, the
//     first the default; AddProject), per-project issue types (SetIssueTypes) and
//     per-project permissions (browse, create, edit, transition, comment):
//     no browse = the project and its issues do not exist (404, absent from
//     search); otherwise 403. Request bodies must be application/json (415).
//   - Issue types Epic (10000, hierarchy 1), Story (10001), Task (10002),
//     Subtask (10003, hierarchy -1, subtask: true); parent links from a
//     story/task to an epic, and from a sub-task to a story or task of the
//     same project, which a sub-task must have (create without one, or
//     under an epic or another sub-task, is refused per field, also per
//     element in bulk create; clearing a sub-task's parent too).
//   - Issue links (links.go): Jira Cloud's default link types Blocks ("is
//     blocked by" / "blocks"), Cloners, Duplicate ("is duplicated by" /
//     "duplicates"), Relates ("relates to"); GET issueLinkType[/{id}];
//     POST issueLink (201 without a body, as Jira; inwardIssue is the
//     link's source: {Blocks, inwardIssue A, outwardIssue B} is "A blocks
//     B", so fields.issuelinks of B holds inwardIssue A and of A
//     outwardIssue B, as Atlassian's issue linking model describes); a
//     duplicate request answers 201 and adds nothing; unknown type or
//     issue 404, an issue linked to itself 400); GET and DELETE
//     issueLink/{id} (204; 404 unknown; 400 not a number). Creating or
//     deleting a link moves both issues' updated.
//   - The Jira Software (Agile) REST API 1.0 parts DevWorkWire uses
//     (agile.go), checked against Atlassian's documentation of the Jira
//     Software Cloud REST API (developer.atlassian.com/cloud/jira/software/
//     rest/: board, sprint and issue groups), not against an OpenAPI
//     description (none was available offline), so the contract
//     middleware does not check them: GET board (projectKeyOrId, type,
//     name, startAt/maxResults ≤ 50, isLast/total) and board/{id}; GET
//     board/{id}/sprint (state=active,future,closed; 400 on a Kanban
//     board); GET sprint/{id}; POST sprint/{id}/issue (≤ 50 issues, 204;
//     400 for a closed sprint, an unknown issue, an issue of another
//     project, or a sub-task, which is in its parent's sprint and moves
//     with it); PUT issue/rank (≤ 50 issues, exactly one of
//     rankBeforeIssue/rankAfterIssue, 204, or Jira's partial success: 207
//     with entries [{issueId, issueKey, status, errors}] for every issue,
//     the others applied; FailRank scripts a failing issue). Every project
//     gets a Scrum board "<KEY> board" with "<KEY> Sprint 1" (active) and
//     "<KEY> Sprint 2" (future); AddBoard/AddSprint/SetSprintState add
//     more. The Sprint (customfield_10020, gh-sprint, array of sprints)
//     and Rank (customfield_10019, gh-lexo-rank, a sortable string) fields
//     are in GET field and on issues; a new issue ranks last; ORDER BY
//     Rank follows the rank; moving to a sprint and ranking move the
//     moved issues' updated.
//   - Site profiles (site.go), for the whole site (seed file top level,
//     Options, POST /_mockjira/site) with per-project overrides
//     ("projects": {"KEY": {...}}); without them the fake is as it always
//     was. "style": "team-managed" gives a project fields per issue type
//     (the reference field is one field per issue type, all with the
//     reference field's name, listed by GET field with scope PROJECT;
//     createmeta, editmeta, create, edit, JQL cf[N] and search read each
//     issue's own; the name in JQL reads each issue's), project style
//     "next-gen"/simplified, a "simple" board with sprints on, "Subtask";
//     "company-managed": the global reference field on screens, a scrum
//     and a kanban board (sprints 400 "The board does not support
//     sprints"), "Sub-task". "denied_permissions": LINK_ISSUES (POST
//     issueLink 404 "No Link Issue Permission for issue 'KEY'."),
//     SCHEDULE_ISSUES (move to sprint 403, rank refused per issue in the
//     207, the due date off every screen), USER_PICKER (global: GET
//     user/search answers []), or one of the five permissions below; all
//     reported by mypermissions. "epic_name_required": the Epic Name field
//     (customfield_10011, gh-epic-label, ≤ 255) required on the Epic type.
//     "deployment": "datacenter": every /rest/api/3 path answers 404 as
//     Jira Data Center's REST layer does ({"message": "null for uri: …",
//     "status-code": 404}), GET /rest/api/2/serverInfo (served for
//     Cloud too) says deploymentType "Server", and /rest/api/2 serves the
//     REST API v2 as Data Center does (datacenter.go): a personal access
//     token as "Authorization: Bearer" only, text as wiki markup (answered
//     as written; the document jira/wiki reads from it kept inside for
//     search; a text changed since in another way written back through
//     jira/wiki), a story's epic in Epic
//     Link (customfield_10008; parent, in fields and in JQL, only for
//     sub-tasks; "Epic Link" or cf[10008] in JQL), createmeta pages
//     as "values", people by name and key (user searches by username),
//     GET/POST search with startAt/maxResults (≤ 1,000) and total;
//     search/jql, bulkfetch and approximate-count answer 404; the Agile API
//     as on Cloud with the Bearer token (Data Center's description gives
//     the operations DevWorkWire uses Cloud's shapes and limits); one node,
//     which indexes a write before answering it (no search lag unless
//     SearchLag models a node behind). Not modelled for Data Center: its
//     rate-limit headers, a cluster's replay between nodes, text custom
//     fields in wiki markup, rate limiting as an
//     admin option (the site's limits apply as on Cloud, 429 with
//     Retry-After). Its answers are checked against Atlassian's Data
//     Center OpenAPI description where $JIRASPEC_DC_FILE names a copy.
//     SetReferenceSearchable(false) makes the reference fields
//     unsearchable (GET field "searchable": false; a JQL clause on them is
//     an unknown field), and FieldSeed.OffEditScreen can take the
//     reference field off the edit screen (editmeta leaves it out, an edit
//     refuses it), or parent (an edit naming parent, even as null to an
//     issue without one, is refused "Field 'parent' cannot be set. It is
//     not on the appropriate screen, or unknown.", as Jira refuses any
//     field off the screen; whether a real company-managed site refuses
//     null too is a question for dwire's live check). SetBulkCreateReversed(true) lists a bulk create's
//     issues[] newest first (Atlassian does not document the order).
//   - Workflows (workflow.go): the default one is To Do (new) → In
//     Progress (indeterminate) → Done (done), global transitions 11/21/31
//     between all of them; "workflow": "classic" is To Do → In Progress
//     (Start Progress 4, Stop Progress 301) → Resolved (Resolve Issue 5,
//     from To Do too: a screen whose Resolution is required; "Resolution
//     is required." otherwise) → Closed (Close Issue 2: a validator, every
//     sub-task done), Reopen Issue 3 back to To Do (clears the
//     resolution). GET transitions honours transitionId and
//     expand=transitions.fields (each transition's screen fields with
//     allowed values); issues of a classic project carry resolution and
//     resolutiondate.
//   - Fields: summary (≤ 255, no newlines), description and comments as ADF
//     (checked against the official ADF schema; the stored ADF JSON may not
//     exceed Jira's 32,767-character text limit), labels, parent, status,
//     created/updated/statuscategorychangedate, issuelinks ("is blocked by",
//     with the linked issue's status and category), one single-line text
//     custom field (the reference field, ≤ 255; optionally a same-named
//     multi-line decoy field, Options.DuplicateFieldName). Fields can be made
//     required per issue type (RequireField). Issue entity properties
//     (≤ 32768 bytes), also settable in create/edit bodies; they do not move
//     `updated`, and an edit that changes no field does not either.
//   - Planning fields (fields.go): priorities (Jira Cloud's default scheme
//     Highest/High/Medium/Low/Lowest, ids 1–5, Medium the default of a new
//     issue; FieldSeed.Priorities replaces it), assignee, due date,
//     per-project components and versions (released, archived: an archived
//     version is refused and not offered), users with account ids (the
//     configured one, DemoAccountID, assignable everywhere; others
//     assignable in every project or the ones listed; an e-mail hidden by
//     privacy settings is neither returned nor matched by the search), and
//     custom fields of type text, number, date, select, multi-select, user
//     and labels. The default site is a new team-managed project: a
//     "Story point estimate" number field (StoryPointEstimateID), every
//     field on every issue type's screens, no components or versions.
//     Fields can be required per issue type or taken off an issue type's
//     screens (FieldSeed: seed file, POST /_mockjira/fields, ApplyFields);
//     GET field, createmeta and editmeta list them with their allowed
//     values (createmeta: required, the priority's default); create and
//     edit accept {"id"} or {"name"} (options {"value"}), {"accountId"} for
//     users, and refuse bad values with Jira's messages in `errors` keyed
//     by field id; GET user/assignable/search (project, issueKey or
//     issueId; query matches a word prefix of the display name or a
//     visible e-mail prefix; accountId exactly) and GET user/search
//     (every active user, matched the same way; query or accountId
//     required). FieldSeed.OffEditScreen takes a field off an issue type's
//     edit screen only (editmeta leaves it out, an edit refuses it, a
//     create takes it). A person's field edits:
//     PersonEdit.Fields, SeedIssue.Fields.
//   - Every authenticated answer names its account in a header, as Jira
//     does: X-AAccountId (the account id) on Cloud, documented in the
//     introduction of Atlassian's REST API v3 description ("Special
//     request and response headers") and seen on real sites' answers;
//     X-AUSERNAME (the user name) on a Data Center site, documented in
//     the Data Center REST reference's section of the same name. An
//     anonymous answer names none.
//   - Endpoints: GET myself, serverInfo, project/{key}, field,
//     issue/createmeta/{project}/issuetypes[/{id}], mypermissions (the five
//     modelled project permissions in a project or the global context; an
//     existing project the user cannot browse answers 200 with
//     BROWSE_PROJECTS false); POST issue/bulkfetch (≤ 100 ids or keys, the
//     issues' current state, not subject to search lag, ascending id,
//     unknown or unbrowsable issues left out, fields/properties selected as
//     in search with default *navigable; issueErrors is always empty);
//     POST issue, issue/bulk
//     (≤ 50, per-element errors with failedElementNumber, 201 if any was
//     created, 400 if none); GET/PUT issue/{key} (fields= and properties=
//     selection); GET/POST issue/{key}/transitions; GET/POST
//     issue/{key}/comment; issue properties GET/PUT/DELETE; GET/POST
//     search/jql (nextPageToken/isLast, fields, properties,
//     reconcileIssues); POST search/approximate-count. The removed
//     /rest/api/3/search answers 410 like Jira Cloud.
//   - Jira's error bodies {"errorMessages":[],"errors":{}} and validation:
//     required fields, unknown or unsettable fields, invalid ADF, parent
//     missing or not an epic, unknown issue type, unknown transition.
//   - A JQL subset: clauses on project, key/issuekey, issuetype, status,
//     statusCategory (name, key or id), parent, labels, created/updated,
//     summary/description/comment/text and the reference field (cf[N] or
//     its name) with ~ / !~; operators = != IN, NOT IN, IS [NOT] EMPTY,
//     < > <= >= for dates; AND/OR/NOT/&&/||/! and parentheses; ORDER BY
//     key, created, updated, summary, ... ASC|DESC. Quoted strings with
//     Jira's escapes; reserved characters and words must be quoted. Values
//     are checked like Jira (an unknown key in `key in (...)` is a 400).
//     `=` on a text field is an error, as in Jira. Text search (~) models
//     Jira's English analyser (Lucene's EnglishAnalyzer), so the fake is no
//     kinder than Jira: lower-cased letter/digit words, Lucene's English
//     stop words ("a", "is", "it", "to", ...) dropped, every other word
//     reduced to its Porter stem ("running" → "run", "tasks" → "task",
//     "reference" → "refer"), the query analysed the same way (a trailing-*
//     prefix word unstemmed); so a phrase of stop words matches nothing and
//     "runs" matches "running". A word ending in a digit ("v2",
//     "dw3fa90…0") passes unchanged. Possessives ("'s") are split off as
//     words rather than removed. "\"quoted\"" values are phrases (consecutive tokens); an
//     unquoted word that splits into several tokens matches when all of them
//     occur anywhere; -term excludes, trailing * is a prefix. So a phrase
//     search for a reference also finds longer references that contain it:
//     compare exactly in the client. Without ORDER BY results come newest
//     first (created DESC, then id DESC).
//   - Paging: maxResults default 50, capped at 5000 when only ids are
//     requested (fields=id, no properties) and at 100 otherwise (Jira
//     documents 5000 as the id-only maximum and may return fewer when many
//     fields are requested). nextPageToken is opaque, bound to the JQL, and
//     omitted on the last page.
//   - Eventual consistency of search: the search index sees each write only
//     after SearchLag; before that a new issue is missing from search and an
//     edited one matches (and is returned) with its old values, unless its id
//     is in reconcileIssues. GET issue always reads the current state.
//   - Rate limiting (token bucket → 429 with Retry-After, X-RateLimit-*),
//     and Jira's own limits (Options.Limits, ratelimit.go): on Cloud a
//     burst limit per endpoint and method and a per-issue write limit, a
//     refusal 429 + Retry-After + RateLimit-Reason (jira-burst-based,
//     jira-per-issue-on-write) + X-RateLimit-Reset to the minute, and no
//     statement of the burst budget (answers carry counters of another
//     budget that do not follow it, as real sites' do); on a Data Center
//     site one bucket per user with Data Center's headers
//     (X-RateLimit-Limit/Remaining/Interval-Seconds/FillRate, Retry-After);
//     per-request latency, and scripted faults by method, path and call
//     number: 5xx, 503 with Retry-After, 429, connection reset, hang until the
//     client gives up, and drop-after-apply (the write is applied, then the
//     connection is reset without a response — the duplicate trap).
//   - Concurrency as Jira has it: requests sent together are answered
//     together. Searches, counts and bulk fetches hold the data lock for
//     reading (evaluated and rendered at the same time, the answer written
//     after the lock is released); writes hold it alone, so a read never
//     sees half a write. Latency, limits and faults are applied under a
//     lock of their own, so a request on its way in waits for no search.
//   - A request log (each entry is logged before its response leaves, so a
//     client holding a response can count it; requests that got no response
//     are logged when the server gives up on them) and admin endpoints under
//     /_mockjira/ (no auth): requests, issues (an issue's "reference" is
//     the reference field's value without the search tokens DevWorkWire
//     stores after it; "ref_value" is the value as stored), person-style edits (drift),
//     links, faults, config, permissions, seeding. All of it is also Go API
//     on *Server.
//
// The contract test (contract_test.go) runs every test of this package
// behind jira/internal/jiraspec's middleware, which validates each response
// against the trimmed OpenAPI spec in jira/testdata/openapi; any violation
// fails the test that caused it. A Data Center site's answers are checked
// against Atlassian's Data Center description too where $JIRASPEC_DC_FILE
// names a copy (the repository holds none; docs/jira-client.md).
//
// Not modelled: other endpoints (404 with a clear message), the `update`
// operations form of create/edit (rejected with a message), JQL functions
// (issue in linkedIssues(...), currentUser() ...), JQL history operators
// (WAS, CHANGED), relevance ordering in text search, fields
// other than those above, edit screens beyond OffEditScreen (editmeta
// never says required), field contexts (a field's
// options are the same in every project), cascading selects, time tracking,
// JQL on the planning fields (priority, assignee, components, … are not
// searchable), group and role
// visibility of users, Jira's sorting of labels (kept as sent),
// issue deletion, changelog, expand options (ignored), and
// fieldsByKeys. Of links and the Agile API: link comments, the "Link
// issues" permission beyond denied_permissions (Edit stands for it), the per-issue link limit (413),
// link types' administration; setting Sprint or Rank through issue
// fields (use the Agile API), JQL on sprint (sprint = / openSprints()),
// rank as a JQL clause (ORDER BY only), moving to the backlog
// (POST backlog/issue), ranking while moving to a sprint, board
// configuration, filters and columns, sprint create/start/complete
// through the API, the search index's lag for rank (ORDER BY Rank reads
// the current rank). Of rate limiting: the cost-based and points-based
// budgets (and so X-RateLimit-NearLimit, and Beta-Retry-After), how real
// Cloud sites' counters move (their window is not documented: the fake's
// quota counter is an assumption), Data Center's exemptions. Of site
// profiles: a team-managed field shared by
// several issue types (each type has its own here), team-managed
// workflows and their rules, any other classic screen or validator,
// workflow conditions, resolutions on the default workflow, the
// resolution endpoint, project roles and permission schemes beyond the
// listed keys, and of Data Center what "deployment" above does not list.
package jiratest
