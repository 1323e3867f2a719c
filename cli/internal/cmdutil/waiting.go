package cmdutil

import (
	"context"
	"net/url"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core"
)

// waiting wraps the reads and previews of a Service with a spinner on
// stderr: after render.SpinnerDelay of waiting for Jira it shows "Waiting
// for Jira at HOST…" until the answer comes (issue 19 #11). Only on a
// terminal and never with --json (see Factory.OpenService). Commits have
// their progress bar instead.
type waiting struct {
	Service
	ios  *iostreams.IOStreams
	host string
}

func (w waiting) wait() func() {
	label := "Waiting for Jira at " + w.host + "… (Ctrl-C stops; nothing is written)"
	sp := render.StartSpinner(w.ios.ErrOut, w.ios.Width(), label, render.SpinnerDelay, spinnerTick)
	unset := w.ios.SetStatusLine(sp.Around)
	return func() { unset(); sp.Stop() }
}

func (w waiting) ImportPreview(ctx context.Context, in core.ImportPreviewInput) (core.ImportPreviewResult, error) {
	defer w.wait()()
	return w.Service.ImportPreview(ctx, in)
}

func (w waiting) ProgressPreview(ctx context.Context, in core.ProgressPreviewInput) (core.ProgressPreviewResult, error) {
	defer w.wait()()
	return w.Service.ProgressPreview(ctx, in)
}

func (w waiting) Get(ctx context.Context, in core.GetInput) (core.GetResult, error) {
	defer w.wait()()
	return w.Service.Get(ctx, in)
}

func (w waiting) Query(ctx context.Context, in core.QueryInput) (core.QueryResult, error) {
	defer w.wait()()
	return w.Service.Query(ctx, in)
}

// hostOf is the host of a site URL, for messages.
func hostOf(site string) string {
	if u, err := url.Parse(site); err == nil && u.Host != "" {
		return u.Host
	}
	return site
}
