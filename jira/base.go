package jira

import (
	"context"

	"github.com/devworkwire/devworkwire/core"
)

var _ core.BaseRecorder = (*Provider)(nil)

// RecordBase implements core.BaseRecorder (a pull moves an item's bases
// forward): one read of the issue and one write of its devworkwire
// property (PUT /rest/api/3/issue/{key}/properties/devworkwire). No field
// of the issue is written. The property's Jira-side digests are those of
// the issue as read, so the next read reports nothing DevWorkWire did not
// write, except the content keys held (spec.HeldContent).
func (p *Provider) RecordBase(ctx context.Context, key, fingerprint string, spec core.ItemSpec) error {
	ctx, done := p.observe(ctx, "RecordBase")
	defer done()
	m, err := p.ownItem(ctx, key)
	if err != nil {
		return err
	}
	is, err := p.getIssue(ctx, m, key)
	if err != nil {
		return itemErr(err, spec.Reference, key)
	}
	if w := p.workItem(m, is); w.Fingerprint != fingerprint {
		return core.Errorf(core.CodePreviewStale, "%s changed in Jira since it was read; its base was not recorded.", key).
			WithDetails(core.Detail{Item: string(spec.Reference), Key: key, Message: "changed since read"})
	}
	parent := is.parentKey()
	if is.typeID() == m.epicTypeID {
		parent = "" // as workItem: an epic's parent is not DevWorkWire's
	}
	c := m.content(is.Fields, parent)
	content := m.contentDigests(c)
	jd := c.digest()
	for _, k := range spec.HeldContent {
		content[k], jd = "", "" // still a person's: changed on the next read
	}
	pr := capProperty(property{Digest: spec.Digest, JiraDigest: jd, Fields: spec.FieldBases, Content: content, Values: m.baseValues(spec, c)})
	_, err = p.do(ctx, call{method: "PUT", path: issuePath(key) + "/properties/" + PropertyKey, body: pr, class: retryIdempotent, endpoint: "PUT /rest/api/3/issue/{key}/properties/{propertyKey}", action: "record the base of " + key, key: key}, nil)
	if err != nil {
		return putErr(err, spec.Reference, key)
	}
	p.logFor(ctx).Debug("jira issue base recorded", "key", key, "reference", string(spec.Reference))
	return nil
}
