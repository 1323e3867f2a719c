package jiratest

import "slices"

// This file is the reference-field token index: it narrows a search whose
// JQL requires a reference-field text match (cf[N] ~ "…", alone, ANDed with
// other clauses, or ORed with other such clauses) to the issues that could
// match, instead of every issue. It is a superset filter only: every
// candidate is still evaluated in full against the state the search index
// sees (search lag, reconcileIssues), so results are unchanged.

// indexRef records the reference-field tokens of a newly recorded state.
// Entries are never removed: an issue stays a candidate for tokens of any
// of its past states (older states can still be the indexed one while the
// search lag lasts), and the full evaluation drops it if it does not match.
// Call with s.mu held.
func (s *Server) indexRef(iss *issue, st *issueState) {
	v := st.Custom[s.refField(iss.Proj, st.TypeID)]
	if v == "" {
		return
	}
	if s.refIndex == nil {
		s.refIndex = map[string]map[*issue]struct{}{}
	}
	for _, tok := range analyze(v) {
		set := s.refIndex[tok]
		if set == nil {
			set = map[*issue]struct{}{}
			s.refIndex[tok] = set
		}
		set[iss] = struct{}{}
	}
}

// candidates returns, in s.issues order, the issues that can match e, and
// false when the index cannot narrow e (then every issue must be checked).
// Call with s.mu held, after compile.
func (s *Server) candidates(e expr) ([]*issue, bool) {
	set, ok := s.candidateSet(e)
	if !ok {
		return nil, false
	}
	out := make([]*issue, 0, len(set))
	for iss := range set {
		out = append(out, iss)
	}
	// s.issues is in creation order, which is id order.
	slices.SortFunc(out, func(a, b *issue) int { return cmpInt(a.ID, b.ID) })
	return out, true
}

func (s *Server) candidateSet(e expr) (map[*issue]struct{}, bool) {
	switch x := e.(type) {
	case andExpr:
		l, lok := s.candidateSet(x.l)
		r, rok := s.candidateSet(x.r)
		switch {
		case lok && rok:
			if len(r) < len(l) {
				l, r = r, l
			}
			out := map[*issue]struct{}{}
			for iss := range l {
				if _, in := r[iss]; in {
					out[iss] = struct{}{}
				}
			}
			return out, true
		case lok:
			return l, true
		case rok:
			return r, true
		}
		return nil, false
	case orExpr:
		// An OR of many clauses (a lookup's 100 references) is one chain:
		// its sets go into one map, not into a new map at every level.
		out := map[*issue]struct{}{}
		for _, leaf := range orLeaves(x, nil) {
			set, ok := s.candidateSet(leaf)
			if !ok {
				return nil, false
			}
			for iss := range set {
				out[iss] = struct{}{}
			}
		}
		return out, true
	case *clause:
		return s.clauseCandidates(x)
	}
	return nil, false
}

// clauseCandidates narrows a positive reference-field text clause: an issue
// can match only if, for each value, some positive term's exact (non-prefix)
// token occurs in its reference field.
func (s *Server) clauseCandidates(c *clause) (map[*issue]struct{}, bool) {
	if c.f == nil || c.f2 == nil || c.f.kind != fkText || !(c.f.name == refAnyField || s.isRefField(c.f.name)) || c.op != "~" {
		return nil, false
	}
	out := map[*issue]struct{}{}
	for _, terms := range c.f2.terms {
		// Every exact token of every positive term must occur: the
		// candidates are the issues in all of their sets (the smallest,
		// filtered by the others).
		var sets []map[*issue]struct{}
		for _, t := range terms {
			if t.negate {
				continue
			}
			exact := t.tokens
			if t.prefix {
				exact = exact[:len(exact)-1]
			}
			for _, tok := range exact {
				sets = append(sets, s.refIndex[tok])
			}
		}
		if len(sets) == 0 {
			// No positive term has an exact token (only prefixes, or
			// only negations): the index cannot narrow this value.
			if hasPositive(terms) {
				return nil, false
			}
			continue // textMatch needs a positive term: nothing matches
		}
		slices.SortFunc(sets, func(a, b map[*issue]struct{}) int { return len(a) - len(b) })
	next:
		for iss := range sets[0] {
			for _, other := range sets[1:] {
				if _, in := other[iss]; !in {
					continue next
				}
			}
			out[iss] = struct{}{}
		}
	}
	return out, true
}

// orLeaves appends the operands of the OR chain e (none of them an OR).
func orLeaves(e expr, out []expr) []expr {
	if o, ok := e.(orExpr); ok {
		return orLeaves(o.r, orLeaves(o.l, out))
	}
	return append(out, e)
}

func hasPositive(terms []textTerm) bool {
	for _, t := range terms {
		if !t.negate {
			return true
		}
	}
	return false
}
