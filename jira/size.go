package jira

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/jira/adf"
	"github.com/devworkwire/devworkwire/jira/wiki"
)

// TextLimit is the most characters Jira accepts in the value of a
// multi-line text field — the description, and an acceptance-criteria
// field — counted on the value as sent: the ADF JSON document (or the
// text, for a plain-text field). Markdown characters are not what counts:
// the ADF of a short Markdown text is several times longer, and acceptance
// criteria written into the description count too.
const TextLimit = 32767

// ShortTextLimit is the most characters Jira accepts in a short-text
// (single-line) field: an acceptance-criteria field of that type holds
// at most this many, its list markers included.
const ShortTextLimit = 255

// MeasureItem returns the characters Jira will count against limit
// (TextLimit) for each multi-line field DevWorkWire would write for spec:
// "description" (with the acceptance criteria when they live in the
// description) and, when an acceptance-criteria field is configured,
// "acceptance_criteria". It computes exactly the values Create and Update
// send, so a preview can refuse what the commit would be refused. It may
// run discovery (to learn where the criteria go). A short-text
// acceptance-criteria field holds at most ShortTextLimit (limits).
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

// limits are the most characters each field of textSizes may hold.
func (m *meta) limits() map[string]int {
	l := map[string]int{"description": TextLimit, "acceptance_criteria": TextLimit}
	if m.acShort {
		l["acceptance_criteria"] = ShortTextLimit
	}
	return l
}

// CheckItems implements core.ItemChecker: every multi-line field of specs
// that Jira would refuse as too long (MeasureItem against TextLimit), one
// core.SizeProblem each, so the preview refuses what Create and Update
// would refuse. Reads only (it may run discovery).
//
// Measuring means converting to ADF, which costs CPU (about 0.1 ms an
// item): an item too short to come near the limit (fitsSurely) is not
// measured, and an ADF text is counted without being encoded, only up to
// measureCap characters (measuredText): a field longer than that is
// reported as "more than" the limit, so that a document of huge
// descriptions is refused without converting all of them.
func (p *Provider) CheckItems(ctx context.Context, specs []core.ItemSpec) ([]core.Detail, error) {
	var details []core.Detail
	for _, spec := range specs {
		if fitsSurely(spec) && !p.criteriaInShortField(ctx, spec) {
			continue
		}
		m, err := p.ensureMeta(ctx)
		if err != nil {
			return nil, err
		}
		fields, err := p.contentFieldsWith(m, spec, false, p.measuredText)
		if err != nil {
			return nil, err
		}
		sizes, err := m.textSizes(fields)
		if err != nil {
			return nil, err
		}
		details = append(details, oversized(spec.Reference, sizes, m.limits())...)
	}
	return details, nil
}

// criteriaInShortField reports whether spec has acceptance criteria to write into a
// short-text field (fitsSurely bounds the multi-line limit only).
func (p *Provider) criteriaInShortField(ctx context.Context, spec core.ItemSpec) bool {
	if len(spec.AcceptanceCriteria) == 0 || p.cfg.AcceptanceCriteriaField == "" {
		return false
	}
	m, err := p.ensureMeta(ctx)
	return err != nil || m.acShort // an error: measure, and report it there
}

var _ core.ItemChecker = (*Provider)(nil)

// An item's text as Jira counts it (the ADF JSON) is at most
// adfFixed + adfPerRune × its Markdown characters (description and
// criteria, each criterion with its list marker). The worst expansion
// measured is about 44 characters of ADF per Markdown character (lists
// nested on one line, "- - - a") plus some 60 for the document around
// it; the bound leaves a margin of about three (TestFitsSurelyIsABound).
const (
	adfFixed   = 2048
	adfPerRune = 128
)

// fitsSurely reports whether spec's text is too short for its ADF to
// reach TextLimit whatever its Markdown holds.
func fitsSurely(spec core.ItemSpec) bool {
	n := utf8.RuneCountInString(spec.Description)
	for _, c := range spec.AcceptanceCriteria {
		n += utf8.RuneCountInString(c) + 4
	}
	return adfFixed+adfPerRune*n <= TextLimit
}

// measureCap is how far CheckItems counts a rich text's size exactly:
// the limit itself. A text past it is refused as "more than" the limit
// as soon as the count passes it, without converting or rendering the
// rest (counting on to tell its exact size cost seconds of CPU for a
// document of 150 hostile descriptions); Create and Update, and
// MeasureItem, still count every character.
const measureCap = TextLimit

// measuredSize is a rich text's size as Jira counts it, counted up to
// measureCap without encoding the text (measuredText); larger means more
// than measureCap.
type measuredSize int

// measuredText is richText for CheckItems, counted up to measureCap and
// not encoded: a Cloud description's ADF (adf.MarkdownSize), Data
// Center's wiki markup as the JSON string richText makes
// (wiki.MarkdownSize).
func (p *Provider) measuredText(md string) (any, error) {
	if strings.TrimSpace(md) == "" {
		return nil, nil
	}
	if p.dataCenter() {
		return measuredSize(wiki.MarkdownSize(md, measureCap)), nil
	}
	return measuredSize(adf.MarkdownSize(md, measureCap)), nil
}

// oversized lists the fields of sizes over their limits, description
// first; a size past measureCap was not counted to its end.
func oversized(ref core.Reference, sizes map[string]int, limits map[string]int) []core.Detail {
	var details []core.Detail
	for _, name := range []string{"description", "acceptance_criteria"} {
		switch n := sizes[name]; {
		case n > measureCap:
			details = append(details, core.SizeOverProblem(ref, name, limits[name]))
		case n > limits[name]:
			details = append(details, core.SizeProblem(ref, name, n, limits[name]))
		}
	}
	return details
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
		switch v := v.(type) {
		case string:
			sizes[name] = utf8.RuneCountInString(v)
		case json.RawMessage:
			sizes[name] = utf8.RuneCount(v) // toADF's compact encoding, as sent
		case measuredSize:
			sizes[name] = int(v)
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
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
	limits := m.limits()
	details := oversized(spec.Reference, sizes, limits)
	if len(details) == 0 {
		return nil
	}
	field := details[0].Field
	if limits[field] == ShortTextLimit {
		return core.Errorf(core.CodeValidationFailed, "The acceptance criteria of %s are too long for Jira's short-text field: %d characters (list markers included); at most %d. Shorten them, or use a paragraph (multi-line text) field for acceptance criteria.",
			spec.Reference, sizes[field], ShortTextLimit).WithDetails(details...)
	}
	return core.Errorf(core.CodeValidationFailed, "The %s of %s is too long for Jira: %d characters as Jira counts them (the document it stores, acceptance criteria included); at most %d. Shorten it.",
		strings.ReplaceAll(field, "_", " "), spec.Reference, sizes[field], TextLimit).WithDetails(details...)
}
