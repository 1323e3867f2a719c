package sqlrows

import (
	"encoding/json"

	"github.com/devworkwire/devworkwire/core"
)

// AuditQuery is the query of ListAudit over the audit table (seq, body),
// newest first; with a handle (f.Handle set) it takes one argument, the
// handle. The other filters are applied by Audit, on the decoded records.
func AuditQuery(table, placeholder string, f core.AuditFilter) (query string, args []any) {
	query = `SELECT seq, body FROM ` + table
	if f.Handle != "" {
		query += ` WHERE handle = ` + placeholder
		args = append(args, f.Handle)
	}
	return query + ` ORDER BY seq DESC`, args
}

// Audit reads up to limit (all when limit <= 0) records passing f from
// rows of AuditQuery, and whether more did.
func Audit(rows Rows, f core.AuditFilter, limit int) ([]core.AuditRecord, bool, error) {
	var out []core.AuditRecord
	for rows.Next() {
		var (
			seq  int64
			body []byte
		)
		if err := rows.Scan(&seq, &body); err != nil {
			return nil, false, err
		}
		var (
			more bool
			err  error
		)
		if out, more, err = core.AppendAudit(out, seq, body, f, limit); err != nil {
			return nil, false, err
		} else if more {
			return out, true, nil
		}
	}
	return out, false, rows.Err()
}

// PolicyName is the policy table's row of the gate policy.
const PolicyName = "gate"

// PolicyBody is the stored form of p (VALIDATION_FAILED for an unknown
// value).
func PolicyBody(p core.GatePolicy) ([]byte, error) {
	if err := core.CheckPolicy(p); err != nil {
		return nil, err
	}
	p.SetAt = p.SetAt.UTC()
	return json.Marshal(p)
}

// PolicyColumns are the columns Policy reads from the policy table.
const PolicyColumns = `body`

// Policy reads the stored policy from rows of PolicyColumns (the row of
// PolicyName): the default when there is none.
func Policy(rows Rows) (core.GatePolicy, error) {
	if !rows.Next() {
		return core.DefaultGatePolicy, rows.Err()
	}
	var body []byte
	if err := rows.Scan(&body); err != nil {
		return core.GatePolicy{}, err
	}
	var p core.GatePolicy
	if err := json.Unmarshal(body, &p); err != nil {
		return core.GatePolicy{}, core.Wrap(err, core.CodeInternal, "The stored gate policy cannot be read.")
	}
	return p, nil
}
