package service_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/core/storetest/memstore"
)

// rewritingStore returns stored plans rewritten by f, as a store holding
// a plan written by another version of DevWorkWire would.
type rewritingStore struct {
	*memstore.Store
	f func([]byte) []byte
}

func (s rewritingStore) LoadPreview(ctx context.Context, handle string) (core.Preview, error) {
	p, err := s.Store.LoadPreview(ctx, handle)
	if err == nil {
		p.Plan = s.f(p.Plan)
	}
	return p, err
}

// A stored plan of another format version is refused by every reader of
// stored plans — the commit and the show-a-stored-preview read alike (the
// latter used to decode it without a version check) — and nothing is
// written.
func TestStoredPlanOfAnotherVersionIsRefusedEverywhere(t *testing.T) {
	e := checkoutEnv(t)
	imp := e.preview(markdown("checkout", checkoutItems[:2]...))
	prog := progressPreview(t, e, service.ProgressPreviewInput{Item: "checkout/s-1", Status: core.StatusDone})
	future := func(b []byte) []byte { return bytes.Replace(b, []byte(`"version":1`), []byte(`"version":2`), 1) }
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: rewritingStore{e.st, future}, Now: e.clock.Now})
	e.p.ForbidWrites(t)
	for _, h := range []string{imp.PreviewHandle, prog.PreviewHandle} {
		_, err := svc.StoredPreview(e.ctx, h)
		wantErr(t, err, core.CodeInternal, "format version 2", "Nothing was written")
	}
	_, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: imp.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeInternal, "format version 2", "run the import preview again")
	_, err = svc.ProgressCommit(e.ctx, service.CommitInput{PreviewHandle: prog.PreviewHandle, Confirmed: true})
	wantErr(t, err, core.CodeInternal, "format version 2", "run the progress preview again")

	// The same plans, as stored, are shown and committed.
	e.p.AllowWrites()
	info, err := e.svc.StoredPreview(e.ctx, imp.PreviewHandle)
	if err != nil || info.Import == nil || info.Import.Counts != imp.Counts || len(info.Import.Items) != len(imp.Items) {
		t.Fatalf("StoredPreview = %+v, %v; want the preview as made", info, err)
	}
	if res := e.commit(imp.PreviewHandle, ""); res.Counts.Unchanged != 2 {
		t.Errorf("commit %+v", res.Counts)
	}
}

// A stored plan written by an earlier build (its "result" held the whole
// preview result, handle and counts included) still decodes: the stored
// format has its own types, and fields only a result has are ignored.
func TestStoredPlanOfAnEarlierBuildStillDecodes(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(markdown("checkout", checkoutItems[:2]...))
	old := func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"result":{`), []byte(`"result":{"result_type":"preview","preview_handle":"","expires_at":"0001-01-01T00:00:00Z","counts":{"create":9},"items":null,"future_field":true,`), 1)
	}
	svc := service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: rewritingStore{e.st, old}, Now: e.clock.Now})
	info, err := svc.StoredPreview(e.ctx, pre.PreviewHandle)
	if err != nil || info.Import.Counts != pre.Counts || info.Import.PreviewHandle != pre.PreviewHandle || info.Import.Document != "checkout" {
		t.Fatalf("StoredPreview of an earlier build's plan = %+v, %v; want %+v", info.Import, err, pre.Counts)
	}
}

// contentBasesDoc has a create of each shape the content bases take: an
// epic without criteria, a story with a managed field (its bases sit next
// to the content's), and a story whose description is too long for its
// value to be kept (its digest only).
func contentBasesDoc() string {
	long := strings.Repeat("A long line of description. ", 100)
	return "---\nid: bases\n---\n# Bases\n\n## Epic e-1: Unique epic title\n\nThe epic's own words.\n\n" +
		"## Story s-1: Unique story title\nEpic: e-1\nLabels: web\n\nThe story's own words.\n\nAcceptance criteria:\n- Unique criterion\n\n" +
		"## Story s-2: Long story\nEpic: e-1\n\n" + long + "\n"
}

// A stored plan holds each create's content once: the bases a create
// records (the digests and values of its title, description and criteria)
// are derived from the spec again when the plan is read, instead of being
// stored a second time beside it.
func TestStoredPlanHoldsEachCreatesContentOnce(t *testing.T) {
	e := newEnv(t)
	pre := e.preview(contentBasesDoc())
	p, err := e.st.LoadPreview(e.ctx, pre.PreviewHandle)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Unique epic title", "The epic's own words.", "Unique story title", "The story's own words.", "Unique criterion", strings.Repeat("A long line of description. ", 100)} {
		if n := bytes.Count(p.Plan, []byte(s)); n != 1 {
			t.Errorf("the stored plan holds %q %d times; want once", s, n)
		}
	}
}

// withContentBasesInFull rewrites a stored import plan into the shape
// stored before the content bases were derived: every entry's bases in
// full (the digests and values of its title, description and criteria,
// next to its other fields' bases), computed here as that release
// computed them.
func withContentBasesInFull(t *testing.T) func([]byte) []byte {
	return func(b []byte) []byte {
		var pl map[string]any
		if err := json.Unmarshal(b, &pl); err != nil {
			t.Fatal(err)
		}
		full := 0
		for _, x := range pl["entries"].([]any) {
			e := x.(map[string]any)
			if e["content_bases"] != true {
				continue
			}
			delete(e, "content_bases")
			spec := e["spec"].(map[string]any)
			title, _ := spec["title"].(string)
			desc, _ := spec["description"].(string)
			var ac []string
			if v, ok := spec["acceptance_criteria"].([]any); ok {
				for _, c := range v {
					ac = append(ac, c.(string))
				}
			}
			bases, _ := spec["field_bases"].(map[string]any)
			vals, _ := spec["base_values"].(map[string]any)
			if bases == nil {
				bases = map[string]any{}
			}
			if vals == nil {
				vals = map[string]any{}
			}
			for k, v := range map[string][]string{core.ContentTitle: {title}, core.ContentDescription: {strings.TrimSpace(desc)}, core.ContentCriteria: ac} {
				bases[k] = core.ContentFieldDigest(v...)
				if j, _ := json.Marshal(v); len(j) <= core.MaxBaseValue {
					vals[k] = v
				}
			}
			spec["field_bases"], spec["base_values"] = bases, vals
			full++
		}
		if full == 0 {
			t.Fatal("no entry had its content bases left out")
		}
		out, err := json.Marshal(pl)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// A stored plan written before the content bases were derived (each
// create's bases stored in full) still loads, shows the same preview and
// commits the same bases as a plan stored now.
func TestStoredPlanWithContentBasesInFullStillCommits(t *testing.T) {
	committed := func(rewrite func([]byte) []byte) (service.ImportPreviewResult, map[core.Reference]core.WorkItem) {
		e := newEnv(t)
		pre := e.preview(contentBasesDoc())
		svc := e.svc
		if rewrite != nil {
			svc = service.NewWorkItemService(service.ServiceOptions{Provider: e.p, Store: rewritingStore{e.st, rewrite}, Now: e.clock.Now})
		}
		info, err := svc.StoredPreview(e.ctx, pre.PreviewHandle)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, IdempotencyKey: "k1", Confirmed: true}); err != nil {
			t.Fatal(err)
		}
		return *info.Import, e.byRef()
	}
	nowPre, now := committed(nil)
	oldPre, old := committed(withContentBasesInFull(t))
	if !reflect.DeepEqual(nowPre.Items, oldPre.Items) || nowPre.Counts != oldPre.Counts {
		t.Errorf("the plan stored in full shows\n%+v\nwant\n%+v", oldPre.Items, nowPre.Items)
	}
	if len(now) != 3 {
		t.Fatalf("committed %d items; want 3", len(now))
	}
	for ref, w := range now {
		o := old[ref]
		if len(w.FieldBases) < 3 || !reflect.DeepEqual(w.FieldBases, o.FieldBases) || !reflect.DeepEqual(w.BaseValues, o.BaseValues) {
			t.Errorf("%s: bases %v %v; from the plan stored in full %v %v", ref, w.FieldBases, w.BaseValues, o.FieldBases, o.BaseValues)
		}
	}
	if _, ok := now["bases/s-1"].FieldBases[core.FieldLabels]; !ok {
		t.Errorf("s-1 lost its field's base: %v", now["bases/s-1"].FieldBases)
	}
	if _, ok := now["bases/s-2"].BaseValues[core.ContentDescription]; ok {
		t.Errorf("s-2's long description was kept as a base value")
	}
	if v, ok := now["bases/s-1"].BaseValues[core.ContentTitle]; !ok || !slices.Equal(v, []string{"Unique story title"}) {
		t.Errorf("s-1's title base value %v", v)
	}
}

// A stored plan holds '<', '>' and '&' as they are: escaped for HTML each
// took six bytes, so a description of block quotes was stored at six
// times its size. A plan stored with them escaped (as earlier releases
// stored every plan) still commits the same items.
func TestStoredPlanKeepsHTMLCharacters(t *testing.T) {
	desc := strings.Repeat("> quoted <b>bold</b> & more\n", 20)
	doc := "---\nid: html\n---\n# HTML\n\n## Story s-1: Angle brackets\n\n" + desc
	committed := func(rewrite func([]byte) []byte) (core.Preview, map[core.Reference]core.WorkItem) {
		p, _, now := commitStored(t, doc, rewrite)
		return p, now
	}
	p, now := committed(nil)
	for _, s := range []string{`\u003c`, `\u003e`, `\u0026`} {
		if bytes.Contains(p.Plan, []byte(s)) {
			t.Errorf("the stored plan holds %s; want the character as it is", s)
		}
	}
	if !bytes.Contains(p.Plan, []byte("> quoted <b>bold</b> & more")) {
		t.Errorf("the stored plan does not hold the description's text as written:\n%s", p.Plan)
	}
	_, escaped := committed(func(b []byte) []byte {
		out, err := json.Marshal(json.RawMessage(b)) // escapes '<', '>' and '&'
		if err != nil || !bytes.Contains(out, []byte(`\u003e`)) {
			t.Fatalf("re-encoding the plan with HTML escapes: %v\n%s", err, out)
		}
		return out
	})
	if len(now) != 1 || !reflect.DeepEqual(now, escaped) {
		t.Errorf("committed %v; from the plan stored with HTML escapes %v", now, escaped)
	}
	if w := now["html/s-1"]; !strings.Contains(w.Description, "<b>bold</b> & more") {
		t.Errorf("the committed description is %q", w.Description)
	}
}

// commitStored previews doc in a new env and commits the stored plan,
// read through rewrite (nil: as stored). It returns the plan as stored,
// the stored preview as shown through rewrite, and what the tracker
// holds after the commit.
func commitStored(t *testing.T, doc string, rewrite func([]byte) []byte) (core.Preview, service.PreviewInfo, map[core.Reference]core.WorkItem) {
	t.Helper()
	e := newEnv(t)
	e.writes = 1 // one write at a time: the same keys in every env
	e.svc = e.service(e.p)
	pre := e.preview(doc)
	p, err := e.st.LoadPreview(e.ctx, pre.PreviewHandle)
	if err != nil {
		t.Fatal(err)
	}
	svc := e.svc
	if rewrite != nil {
		svc = e.serviceWith(service.ServiceOptions{Store: rewritingStore{e.st, rewrite}, WritesInFlight: e.writes})
	}
	info, err := svc.StoredPreview(e.ctx, pre.PreviewHandle)
	if err != nil {
		t.Fatal(err)
	}
	if info.Import == nil || !reflect.DeepEqual(info.Import.Items, pre.Items) || info.Import.Counts != pre.Counts {
		t.Fatalf("the stored preview shows %+v; the preview showed %+v", info.Import, pre)
	}
	if _, err := svc.ImportCommit(e.ctx, service.CommitInput{PreviewHandle: pre.PreviewHandle, IdempotencyKey: "k1", Confirmed: true}); err != nil {
		t.Fatal(err)
	}
	return p, info, e.byRef()
}

// gunzip is b decompressed (gzip).
func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err == nil {
		b, err = io.ReadAll(zr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A large plan is stored compressed: the 400-item plan's JSON repeats its
// field names and references item after item, and the store writes (and
// every reader digests) a fraction of it. It shows and commits what the
// preview showed; a large plan stored as plain JSON, as earlier releases
// stored every plan, still shows and commits the same.
func TestLargeStoredPlanIsCompressed(t *testing.T) {
	doc := bigDoc("big", 4, 99)
	p, info, now := commitStored(t, doc, nil)
	if !bytes.HasPrefix(p.Plan, []byte{0x1f, 0x8b}) {
		t.Fatalf("the stored plan of 400 items starts %q; want it compressed (gzip)", p.Plan[:min(len(p.Plan), 40)])
	}
	js := gunzip(t, p.Plan)
	if !json.Valid(js) || len(p.Plan)*4 > len(js) {
		t.Errorf("the stored plan is %d bytes for %d bytes of JSON (valid: %v); want under a quarter", len(p.Plan), len(js), json.Valid(js))
	}
	_, plainInfo, plain := commitStored(t, doc, func(b []byte) []byte { return gunzip(t, b) })
	if len(now) != 400 || !reflect.DeepEqual(now, plain) {
		t.Errorf("committed %d items; from the plan stored as plain JSON %d, or they differ: %s", len(now), len(plain), cmp.Diff(now, plain))
	}
	if !reflect.DeepEqual(info.Import.Items, plainInfo.Import.Items) {
		t.Errorf("the plan stored as plain JSON shows other items than the compressed one")
	}

	// A small plan stays plain JSON.
	small, _, _ := commitStored(t, markdown("checkout", checkoutItems[:2]...), nil)
	if !json.Valid(small.Plan) {
		t.Errorf("the small stored plan is not plain JSON: %q", small.Plan[:min(len(small.Plan), 40)])
	}
}
