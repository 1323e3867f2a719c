package service

import "github.com/devworkwire/devworkwire/core"

// OutcomeOf is the reference under which the commit records w's outcome.
func OutcomeOf(w PlannedWrite) core.Reference { return w.outcome }
