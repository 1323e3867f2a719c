package core

// OutcomeOf is the reference under which the commit records w's outcome.
func OutcomeOf(w PlannedWrite) Reference { return w.outcome }
