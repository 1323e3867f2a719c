package render

import (
	"bytes"
	"testing"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// The audit log and the pending list are blocks a blank line apart, the
// note that the list was cut after another blank line, and a sentence of
// their own when nothing matches.
func TestListsOfBlocks(t *testing.T) {
	at := expires.UTC()
	for _, c := range []struct {
		name  string
		write func(*bytes.Buffer)
		want  string
	}{
		{"audit", func(b *bytes.Buffer) {
			AuditLog(b, service.AuditResult{Returned: 2, Truncated: true, Records: []core.AuditRecord{
				{At: at, Event: core.AuditPolicySet, Note: "one"},
				{At: at, Event: core.AuditPolicySet, Note: "two"},
			}}, Options{Width: 80})
		}, "2026-11-29 23:05:00Z gate policy set\n  one\n\n2026-11-29 23:05:00Z gate policy set\n  two\n\n(the newest 2; more match: narrow the filter or raise --limit)\n"},
		{"audit empty", func(b *bytes.Buffer) { AuditLog(b, service.AuditResult{}, Options{Width: 80}) }, "No audit records match.\n"},
		{"pending", func(b *bytes.Buffer) {
			Pending(b, service.PendingResult{Returned: 2, Truncated: true, Previews: []service.PendingPreview{
				{PreviewHandle: "imp_a", Kind: core.PreviewPull, Document: "a", MadeBy: "ana", CreatedAt: at, ExpiresAt: at},
				{PreviewHandle: "imp_b", Kind: core.PreviewPull, Document: "b", MadeBy: "bo", CreatedAt: at, ExpiresAt: at},
			}}, Options{Width: 80})
		}, "imp_a  pull into a\n  by ana\n  made " + FormatTime(at) + ", expires " + FormatTime(at) + "\n\nimp_b  pull into b\n  by bo\n  made " + FormatTime(at) + ", expires " + FormatTime(at) + "\n\n(the first 2; more are waiting)\n"},
		{"pending empty", func(b *bytes.Buffer) { Pending(b, service.PendingResult{}, Options{Width: 80}) }, "No previews are waiting for review in this project.\n"},
	} {
		var b bytes.Buffer
		c.write(&b)
		if got := b.String(); got != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}
