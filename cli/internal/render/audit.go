package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// AuditLog writes the audit trail, newest first: one block per record, a
// head line (time, what happened, to what) and indented lines for who,
// how and as which account, the outcome and the keys written (wrapped).
// Every text that came from outside (client names, document ids) is
// cleaned of control characters first.
func AuditLog(w io.Writer, r service.AuditResult, o Options) {
	r = Clean(r)
	width := o.width()
	blocks(w, r.Records, "No audit records match.", r.Truncated, fmt.Sprintf("(the newest %d; more match: narrow the filter or raise --limit)", r.Returned), func(rec core.AuditRecord) {
		head := rec.At.UTC().Format("2006-01-02 15:04:05Z") + "  " + auditWhat(rec)
		fmt.Fprintln(w, Truncate(head, width))
		line := func(s string) {
			if s != "" {
				fmt.Fprintln(w, Wrap("  "+s, width, ""))
			}
		}
		line(auditSubject(rec))
		line(auditWho(rec))
		if rec.PreviewedBy != nil && rec.Event != core.AuditPreview {
			line("previewed by " + rec.PreviewedBy.String())
		}
		if rec.Account != nil {
			line("Jira account " + orDash(rec.Account.Name) + " (" + rec.Account.ID + ")")
		}
		if rec.Outcome != "" || rec.Code != "" {
			s := "outcome " + orDash(rec.Outcome)
			if rec.Code != "" {
				s += " (" + string(rec.Code) + ")"
			}
			line(s)
		}
		if len(rec.Keys) > 0 {
			line("keys " + strings.Join(rec.Keys, ", "))
		}
		if rec.Note != "" {
			line(rec.Note)
		}
	})
}

// auditWhat names the event for people.
func auditWhat(r core.AuditRecord) string {
	switch r.Event {
	case core.AuditPreview:
		return "previewed"
	case core.AuditCommitStarted:
		return "commit started"
	case core.AuditCommitFinished:
		return "commit finished"
	case core.AuditCommitRefused:
		return "commit refused"
	case core.AuditPolicySet:
		return "gate policy set"
	case core.AuditLooseningIgnored:
		return "looser local setting ignored"
	case core.AuditPreviewSetAside:
		return "preview set aside"
	}
	return string(r.Event)
}

// auditSubject is what the record is about: the kind and the documents
// or item, and the preview's handle.
func auditSubject(r core.AuditRecord) string {
	var s string
	switch {
	case len(r.Documents) > 0:
		s = string(r.Kind) + " of " + strings.Join(r.Documents, ", ")
	case r.Item != "":
		s = string(r.Kind) + " of " + r.Item
	}
	if r.Handle != "" {
		s = strings.TrimSpace(s + " " + r.Handle)
	}
	return s
}

// auditWho says who did it, and for a commit through which channel.
func auditWho(r core.AuditRecord) string {
	if r.By == nil {
		return ""
	}
	s := "by " + r.By.String()
	if r.Channel != "" {
		s += " via " + channelName(r.Channel)
	}
	return s
}

// channelName says how a commit was confirmed.
func channelName(c core.Channel) string {
	switch c {
	case core.ChannelPrompt:
		return "the terminal prompt"
	case core.ChannelReview:
		return "dwire review"
	case core.ChannelElicitation:
		return "the agent's host asking the person (accepted)"
	case core.ChannelAgent:
		return "the agent's own confirmed: true"
	}
	return string(c)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
