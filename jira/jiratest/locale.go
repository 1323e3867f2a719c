package jiratest

import (
	"maps"
	"slices"
)

// A localised site: Jira shows (and createmeta, the project and issue
// reads return) issue type names in the site's language — "Epos" for
// Epic in German, "Épica" in Spanish — while the ids and the hierarchy
// levels stay. TranslateIssueTypes models that for one project.
//
// Not modelled: JQL takes the English names and the ids here, not the
// translated names (a real site also takes the searcher's language's
// names); status and status category names stay English.

// TranslateIssueTypes gives the project's issue types the names of a
// localised site: English name ("Epic", "Story", "Task", "Subtask") →
// name shown. It reports whether the project and every type exist.
func (s *Server) TranslateIssueTypes(projectKey string, names map[string]string) bool {
	english := slices.Collect(maps.Keys(names))
	return s.setProjectTypes(projectKey, english, func(p *project, ids []string) {
		p.typeNames = make(map[string]string, len(ids))
		for i, id := range ids {
			p.typeNames[id] = names[english[i]]
		}
	})
}

// translated is the name a localised site shows for the issue type id,
// "" when it shows the English one.
func (p *project) translated(id string) string {
	if p == nil {
		return ""
	}
	return p.typeNames[id]
}
