package service_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// StoredPull shows the stored pull plan as the preview returned it (what
// a front door asks the person to confirm, and the file the commit
// writes), writes nothing, says who consumed it after the commit, and
// refuses a handle that is not a pull's or has expired.
func TestStoredPullShowsThePlan(t *testing.T) {
	e, path, res := titlePull(t, "shop/s-2", "Save the address for later")
	w := e.p.Writes()
	info, err := e.svc.StoredPull(e.ctx, res.PreviewHandle)
	if err != nil {
		t.Fatalf("StoredPull: %v", err)
	}
	if info.Kind != core.PreviewPull || info.Pull == nil || info.Import != nil || info.ConsumedBy != "" || info.Commit != nil {
		t.Fatalf("info %+v", info)
	}
	if info.Pull.RunID == res.RunID || !strings.HasPrefix(info.Pull.RunID, "run_") {
		t.Errorf("shown again with run id %q; want this call's own, not the preview's %q", info.Pull.RunID, res.RunID)
	}
	shown := *info.Pull
	shown.RunID = res.RunID // the rest as the preview returned it
	if !reflect.DeepEqual(shown, res) || info.Pull.Path != path || info.Pull.Counts.Pull != 1 {
		t.Errorf("shown plan\n%+v\nwant the preview\n%+v", *info.Pull, res)
	}
	if e.p.Writes() != w {
		t.Errorf("StoredPull wrote %d times", e.p.Writes()-w)
	}
	if _, err := e.svc.PullCommit(e.ctx, service.CommitInput{PreviewHandle: res.PreviewHandle, Confirmed: true, IdempotencyKey: "k-pull"}); err != nil {
		t.Fatal(err)
	}
	info, err = e.svc.StoredPull(e.ctx, res.PreviewHandle)
	if err != nil || info.ConsumedBy != "k-pull" || info.Commit == nil || info.Commit.State != core.RunCommitted {
		t.Errorf("after the commit: %+v %v", info, err)
	}
	// An import handle is not a pull's; StoredPreview still refuses a
	// pull's handle as before.
	pre, err := e.svc.ImportPreview(e.ctx, service.ImportPreviewInput{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.StoredPull(e.ctx, pre.PreviewHandle)
	wantErr(t, err, core.CodePreviewNotFound, "not a pull one")
	_, err = e.svc.StoredPreview(e.ctx, res.PreviewHandle)
	wantErr(t, err, core.CodePreviewNotFound, "pull preview handle")
	_, err = e.svc.StoredPull(e.ctx, "imp_unknown")
	wantErr(t, err, core.CodePreviewNotFound, "")
	// Expired, unconsumed.
	if err := e.p.EditTitle(e.byRef()["shop/s-1"].Key, "Pay as a visitor"); err != nil {
		t.Fatal(err)
	}
	again := e.pullPreview(service.PullPreviewInput{Path: path})
	e.clock.Advance(31 * time.Minute)
	_, err = e.svc.StoredPull(e.ctx, again.PreviewHandle)
	wantErr(t, err, core.CodePreviewExpired, "")
}
