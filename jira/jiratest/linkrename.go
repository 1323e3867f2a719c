package jiratest

import "strings"

// Renamed link types: a site administrator may rename Jira's link types
// (Settings → Work items → Issue linking), "Blocks" to "Blocker" or to
// the team's language, keeping the id and, usually, the inward and
// outward descriptions. A link named by the old name is then refused
// (404 "No issue link type with name … found."), and reads show the new
// name. RenameLinkType models that.

// RenameLinkType gives the link type with this id (LinkTypeBlocksID, …)
// a new name, and new descriptions when inward or outward are not empty.
// It reports whether the type exists.
func (s *Server) RenameLinkType(id, name, inward, outward string) bool {
	if byID(linkTypes, id) == nil || name == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.linkNames == nil {
		s.linkNames = map[string]string{}
	}
	s.linkNames[id] = name + "\x00" + inward + "\x00" + outward
	return true
}

// linkTypeShown is t as this site shows it (renamed or not).
func (s *Server) linkTypeShown(t *linkType) linkType {
	out := *t
	if v, ok := s.linkNames[t.ID]; ok {
		parts := strings.SplitN(v, "\x00", 3)
		out.Name = parts[0]
		if parts[1] != "" {
			out.Inward = parts[1]
		}
		if parts[2] != "" {
			out.Outward = parts[2]
		}
	}
	return out
}

// linkTypeJSON is t's JSON as this site shows it.
func (s *Server) linkTypeJSON(base string, t *linkType) map[string]any {
	shown := s.linkTypeShown(t)
	return shown.json(base)
}

// linkTypeNamed finds a link type by the name this site shows (nil: none).
func (s *Server) linkTypeNamed(name string) *linkType {
	for i := range linkTypes {
		if strings.EqualFold(s.linkTypeShown(&linkTypes[i]).Name, name) {
			return &linkTypes[i]
		}
	}
	return nil
}
