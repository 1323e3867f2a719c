package jiratest

// msgSubtaskParent is the refusal of a sub-task without a parent.
const msgSubtaskParent = "Issue type is a sub-task but parent issue key or id not specified."

// checkSubtask checks a sub-task's parent on create (iss == nil) and edit:
// it must have one, a standard issue (a story or task, not an epic or
// another sub-task) of the same project. Other types' parents are
// checkHierarchy's (a story or task cannot have a sub-task as parent
// there, since that parent is not an epic).
func (s *Server) checkSubtask(pw *plannedWrite, iss *issue, e *jiraError) {
	if pw.typeID != IssueTypeSubtaskID || e.Errors["parent"] != "" {
		return
	}
	var p *issue
	switch {
	case pw.parent != nil:
		p = *pw.parent
	case iss != nil:
		p = s.byID[iss.cur.ParentID]
	}
	if p == nil {
		e.Errors["parent"] = msgSubtaskParent
		return
	}
	t := byID(issueTypes, p.cur.TypeID)
	if t.HierarchyLevel != 0 || t.Subtask || p.Proj != pw.proj || (iss != nil && p == iss) {
		e.Errors["parent"] = msgHierarchy
	}
}

// seedParentFits reports whether par may be the parent of a seeded issue
// of type t.
func seedParentFits(t *issueType, par *issue) bool {
	if par == nil || t.ID == IssueTypeEpicID {
		return false
	}
	pt := byID(issueTypes, par.cur.TypeID)
	if t.Subtask {
		return pt.HierarchyLevel == 0 && !pt.Subtask
	}
	return pt.ID == IssueTypeEpicID
}
