package jira

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
)

// TextLimit is the most characters Jira accepts in the value of a
// multi-line text field — the description, and an acceptance-criteria
// field — counted on the value as sent: the ADF JSON document (or the
// text, for a plain-text field). Markdown characters are not what counts:
// the ADF of a short Markdown text is several times longer, and acceptance
// criteria written into the description count too.
const TextLimit = 32767

// MeasureItem returns the characters Jira will count against limit
// (TextLimit) for each multi-line field DevWorkWire would write for spec:
// "description" (with the acceptance criteria when they live in the
// description) and, when an acceptance-criteria field is configured,
// "acceptance_criteria". It computes exactly the values Create and Update
// send, so a preview can refuse what the commit would be refused. It may
// run discovery (to learn where the criteria go).
func (p *Provider) MeasureItem(ctx context.Context, spec core.ItemSpec) (sizes map[string]int, limit int, err error) {
	m, err := p.ensureMeta(ctx)
	if err != nil {
		return nil, 0, err
	}
	fields, err := p.contentFields(m, spec, false)
	if err != nil {
		return nil, 0, err
	}
	sizes, err = m.textSizes(fields)
	return sizes, TextLimit, err
}

// textSizes measures the multi-line fields of fields, by their domain
// names, as they will be sent.
func (m *meta) textSizes(fields map[string]any) (map[string]int, error) {
	sizes := map[string]int{"description": 0}
	if m.acField != "" {
		sizes["acceptance_criteria"] = 0
	}
	for name, id := range map[string]string{"description": "description", "acceptance_criteria": m.acField} {
		v, ok := fields[id]
		if id == "" || !ok || v == nil {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if s, isText := v.(string); isText {
			sizes[name] = utf8.RuneCountInString(s)
		} else {
			sizes[name] = utf8.RuneCount(b)
		}
	}
	return sizes, nil
}

// checkTextSizes refuses, before anything is sent, a field Jira would
// refuse as too long: VALIDATION_FAILED naming the item, the field, its
// size and the limit.
func (m *meta) checkTextSizes(spec core.ItemSpec, fields map[string]any) error {
	sizes, err := m.textSizes(fields)
	if err != nil {
		return core.Wrap(err, core.CodeInternal, "Could not encode the fields of %s.", spec.Reference)
	}
	var details []core.Detail
	for _, name := range []string{"description", "acceptance_criteria"} {
		if n := sizes[name]; n > TextLimit {
			details = append(details, core.Detail{Item: string(spec.Reference), Field: name, Message: fmt.Sprintf("%d characters as Jira counts them; at most %d", n, TextLimit)})
		}
	}
	if len(details) == 0 {
		return nil
	}
	what := "description"
	if len(details) == 1 && details[0].Field == "acceptance_criteria" {
		what = "acceptance criteria"
	}
	return core.Errorf(core.CodeValidationFailed, "The %s of %s is too long for Jira: %s (Jira counts the document it stores, acceptance criteria included). Shorten it.", what, spec.Reference, details[0].Message).WithDetails(details...)
}
