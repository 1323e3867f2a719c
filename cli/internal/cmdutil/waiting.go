package cmdutil

import (
	"context"
	"net/url"

	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/cli/internal/render"
	"github.com/devworkwire/devworkwire/core/service"
)

// waiting wraps the reads and previews of a Service with a spinner on
// stderr: after render.SpinnerDelay of waiting for Jira it shows "Waiting
// for Jira at HOST…" until the answer comes. Only on a
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

// waitFor is call under the spinner.
func waitFor[I, R any](ctx context.Context, w waiting, call func(context.Context, I) (R, error), in I) (R, error) {
	defer w.wait()()
	return call(ctx, in)
}

func (w waiting) ImportPreview(ctx context.Context, in service.ImportPreviewInput) (service.ImportPreviewResult, error) {
	return waitFor(ctx, w, w.Service.ImportPreview, in)
}

func (w waiting) ProgressPreview(ctx context.Context, in service.ProgressPreviewInput) (service.ProgressPreviewResult, error) {
	return waitFor(ctx, w, w.Service.ProgressPreview, in)
}

func (w waiting) Get(ctx context.Context, in service.GetInput) (service.GetResult, error) {
	return waitFor(ctx, w, w.Service.Get, in)
}

func (w waiting) Query(ctx context.Context, in service.QueryInput) (service.QueryResult, error) {
	return waitFor(ctx, w, w.Service.Query, in)
}

// hostOf is the host of a site URL, for messages.
func hostOf(site string) string {
	if u, err := url.Parse(site); err == nil && u.Host != "" {
		return u.Host
	}
	return site
}
