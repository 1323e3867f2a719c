package cmdutil

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/mcpserver"
)

// Service is what the commands need of service.WorkItemService (declared
// here, where it is consumed): everything the MCP server needs, since
// `dwire mcp` hands this service to mcpserver, and the reads behind
// `dwire review` (a listing, a preview of any kind) and completion.
type Service interface {
	mcpserver.Service
	PendingPreviews(ctx context.Context, limit int) (service.PendingResult, error)
	ShowPreview(ctx context.Context, handle string) (service.PreviewInfo, error)
	SetPreviewAside(ctx context.Context, handle, why string) error
	CheckPreview(ctx context.Context, handle string) error
	KnownItems(ctx context.Context, limit int) ([]core.IndexEntry, error)
	Graph(ctx context.Context, in service.GraphInput) (service.GraphResult, error)
	PullPreview(ctx context.Context, in service.PullPreviewInput) (service.PullPreviewResult, error)
	PullCommit(ctx context.Context, in service.CommitInput) (service.PullCommitResult, error)
	Export(ctx context.Context, in service.ExportInput) (service.ExportResult, error)
	AuditLog(ctx context.Context, q service.AuditQuery) (service.AuditResult, error)
	GatePolicy(ctx context.Context) (core.GatePolicy, error)
	SetGatePolicy(ctx context.Context, agents core.AgentPolicy) (core.GatePolicy, error)
}

// Factory carries the dependencies of every command. Production wiring
// (jira, the stores, service.NewWorkItemService) fills the Open*/NewService
// functions; tests replace them with core/providertest/fakeprovider and core/storetest/memstore.
type Factory struct {
	IOStreams *iostreams.IOStreams
	// Getenv reads the environment (os.Getenv in production).
	Getenv func(string) string
	// WorkDir is where the configuration search starts.
	WorkDir string
	// Version is the binary's version.
	Version string
	// RunID names this invocation for errors that did not come from the
	// service.
	RunID string
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	// Set from the global flags before a command runs.
	ConfigPath string // --config
	JSON       bool   // --json
	Verbose    bool   // --verbose

	// OpenProvider returns the tracker for cfg with the given token.
	OpenProvider func(ctx context.Context, cfg *config.Config, token string, log *slog.Logger) (core.WorkItemProvider, error)
	// OpenStore opens the state store of cfg.
	OpenStore func(ctx context.Context, cfg *config.Config, log *slog.Logger) (core.Store, error)
	// DetectSite asks a tracker site which deployment it is (config's
	// DeploymentCloud or DeploymentDataCenter) and its version, without
	// credentials (dwire init).
	DetectSite func(ctx context.Context, site string) (deployment, version string, err error)
	// FindCloudID asks a Jira Cloud site for its cloud id without
	// credentials (dwire init --scoped-token builds the gateway URL from it).
	FindCloudID func(ctx context.Context, site string) (string, error)
	// NewService builds the service over a provider and a store.
	NewService func(p core.WorkItemProvider, s core.Store, cfg *config.Config, log *slog.Logger) Service

	cfgOnce sync.Once
	cfg     *config.Config
	cfgErr  error
	logOnce sync.Once
	log     *slog.Logger
}

// Logger returns the logger: text on stderr; errors only by default (the
// command itself reports outcomes), everything with --verbose. Log lines
// carry the service's run_id. It never receives the token.
func (f *Factory) Logger() *slog.Logger {
	f.logOnce.Do(func() {
		level := slog.LevelError
		if f.Verbose {
			level = slog.LevelDebug
		}
		var w io.Writer = io.Discard
		if f.IOStreams != nil {
			w = f.IOStreams.LogWriter()
		}
		f.log = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	})
	return f.log
}

// Config loads the configuration once per invocation.
func (f *Factory) Config() (*config.Config, error) {
	f.cfgOnce.Do(func() {
		f.cfg, f.cfgErr = config.Load(f.ConfigPath, f.WorkDir, f.Getenv)
	})
	return f.cfg, f.cfgErr
}

// Provider loads the configuration and the token and opens the tracker.
func (f *Factory) Provider(ctx context.Context) (core.WorkItemProvider, *config.Config, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, nil, err
	}
	tok, err := cfg.Token(f.Getenv)
	if err != nil {
		return nil, cfg, err
	}
	if f.OpenProvider == nil {
		return nil, cfg, errors.New("cmdutil: no tracker wired")
	}
	p, err := f.OpenProvider(ctx, cfg, tok, f.Logger())
	return p, cfg, err
}

// Service wires the provider, the store and the service. The returned
// close function releases the store.
func (f *Factory) Service(ctx context.Context) (Service, *config.Config, func(), error) {
	p, cfg, err := f.Provider(ctx)
	if err != nil {
		return nil, cfg, func() {}, err
	}
	if f.OpenStore == nil || f.NewService == nil {
		return nil, cfg, func() {}, errors.New("cmdutil: no store or service wired")
	}
	st, err := f.OpenStore(ctx, cfg, f.Logger())
	if err != nil {
		return nil, cfg, func() {}, err
	}
	return f.NewService(p, st, cfg, f.Logger()), cfg, func() { _ = st.Close() }, nil
}

// OpenServiceFunc opens the service for one command; the returned function
// releases the store. Commands that need only the service hold one of
// these instead of the whole Factory.
type OpenServiceFunc func(ctx context.Context) (Service, func(), error)

// OpenService is Service without the configuration. On a terminal
// (stderr) and without --json, reads and previews that keep Jira waiting
// for more than a second show a spinner naming the host.
func (f *Factory) OpenService(ctx context.Context) (Service, func(), error) {
	svc, cfg, closeFn, err := f.Service(ctx)
	if err == nil && f.IOStreams != nil && f.IOStreams.IsStderrTTY() && !f.JSON {
		svc = waiting{Service: svc, ios: f.IOStreams, host: hostOf(cfg.Site)}
	}
	return svc, closeFn, err
}

// spinnerTick is how often the spinner is redrawn.
const spinnerTick = 100 * time.Millisecond

// OpenTracker opens the tracker for cfg with the given token and the
// invocation's logger (for `dwire init`, which checks a configuration it
// has not written yet).
func (f *Factory) OpenTracker(ctx context.Context, cfg *config.Config, token string) (core.WorkItemProvider, error) {
	if f.OpenProvider == nil {
		return nil, errors.New("cmdutil: no tracker wired")
	}
	return f.OpenProvider(ctx, cfg, token, f.Logger())
}

// OpenStateStore opens the state store of cfg with the invocation's logger.
func (f *Factory) OpenStateStore(ctx context.Context, cfg *config.Config) (core.Store, error) {
	if f.OpenStore == nil {
		return nil, errors.New("cmdutil: no store wired")
	}
	return f.OpenStore(ctx, cfg, f.Logger())
}
