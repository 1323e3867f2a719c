package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Service is what the MCP server needs of the core: these methods of
// *service.WorkItemService, which satisfies it.
type Service interface {
	ImportPreview(ctx context.Context, in service.ImportPreviewInput) (service.ImportPreviewResult, error)
	ImportCommit(ctx context.Context, in service.CommitInput) (service.ImportCommitResult, error)
	ProgressPreview(ctx context.Context, in service.ProgressPreviewInput) (service.ProgressPreviewResult, error)
	ProgressCommit(ctx context.Context, in service.CommitInput) (service.ProgressCommitResult, error)
	Get(ctx context.Context, in service.GetInput) (service.GetResult, error)
	Query(ctx context.Context, in service.QueryInput) (service.QueryResult, error)
	StoredPreview(ctx context.Context, handle string) (service.PreviewInfo, error)
	Export(ctx context.Context, in service.ExportInput) (service.ExportResult, error)
	PullPreview(ctx context.Context, in service.PullPreviewInput) (service.PullPreviewResult, error)
	PullCommit(ctx context.Context, in service.CommitInput) (service.PullCommitResult, error)
	StoredPull(ctx context.Context, handle string) (service.PreviewInfo, error)
}

// Elicitation modes: whether commit tools also ask the person through MCP
// elicitation, on top of preview_handle + confirmed: true.
const (
	// ElicitationOff never asks.
	ElicitationOff = "off"
	// ElicitationWhenAvailable asks when the client supports elicitation
	// and commits without asking when it does not (the default).
	ElicitationWhenAvailable = "when-available"
	// ElicitationRequired asks, and refuses commits (CONFIRMATION_REQUIRED)
	// from clients that cannot ask.
	ElicitationRequired = "required"
)

// ServerName is serverInfo.name.
const ServerName = "dwire"

// OpenFunc returns the service a tool call runs on and the workspace
// (the folder holding .devworkwire.yaml) import_preview reads documents
// from. The server calls it at the start of every tool call, after the
// arguments were checked, so an OpenFunc that failed (no configuration
// yet, no token) is simply tried again on the next call; it may cache
// what it opened. Its error reaches the agent on the JSON-RPC error
// channel (CONFIG_MISSING, CONFIG_INVALID, CREDENTIALS_MISSING, …).
type OpenFunc func(ctx context.Context) (svc Service, workspace string, err error)

// Options configure the server.
type Options struct {
	// Version is serverInfo.version, the package version set at build
	// time. Empty or "(devel)" is replaced by "0.0.0-unknown".
	Version string
	// Logger receives one line per tool call (tool, outcome or code,
	// run_id, duration) at Info or Warn, and SDK diagnostics at Debug or
	// above Info. It must not write to the protocol stream (stdout). nil
	// discards logs.
	Logger *slog.Logger
	// Workspace is the folder holding .devworkwire.yaml; import_preview
	// and pull_preview read, and pull_commit writes, only documents inside it (after resolving symlinks). Empty
	// means the current working directory. Ignored when Open is set.
	Workspace string
	// Open, when set, supplies the service and the workspace per tool call
	// instead of the svc given to New and Workspace: `dwire mcp` starts
	// with no configuration or token and reports their absence per call.
	Open OpenFunc
	// Elicitation is "off", "when-available" (default when empty) or
	// "required". An unknown value is treated as "required" (fail closed).
	Elicitation string
	// Policy, when set, reads the team's gate policy before Serve answers
	// the first request, so the commit tools' descriptions in tools/list
	// name the policy in force (`dwire mcp` reads it from the state store
	// without Jira or a token). A failure, or no answer within
	// policyReadWait, leaves it to the first tool call that opens the
	// service; the descriptions then change (notifications/tools/list_changed).
	// Without Policy and Open, svc's own policy is read.
	Policy func(ctx context.Context) (core.GatePolicy, error)
}

// policyReadWait bounds how long Serve waits for Options.Policy before it
// answers initialize (a shared store that does not answer must not hold
// the host up).
const policyReadWait = 3 * time.Second

type server struct {
	logger *slog.Logger
	open   OpenFunc
	elicit string
	// localSet: the elicitation mode was chosen (not the default), so a
	// mode looser than the team's policy is recorded (policy.go).
	localSet       bool
	looseningNoted atomic.Bool
	pending        *pendingConfirmations
	args           *argValidator
	stopOnce       sync.Once
	stopping       chan struct{} // closed when Serve's context ends

	// The commit tools, registered again when the policy their
	// descriptions name changes (describePolicy).
	ms          *mcp.Server
	commitTools map[string]commitTool
	describeMu  sync.Mutex
	described   string // the policy note the descriptions carry
}

// backend is what one tool call runs on.
type backend struct {
	svc       Service
	workspace string
}

func (s *server) backend(ctx context.Context) (backend, error) {
	svc, ws, err := s.open(ctx)
	if err != nil {
		return backend{}, err
	}
	return backend{svc: svc, workspace: ws}, nil
}

// stop cancels every running tool call (their contexts end with
// errServerStopping).
func (s *server) stop() { s.stopOnce.Do(func() { close(s.stopping) }) }

// cancelOnStop calls cancel when the server stops; the returned func ends
// the watch.
func (s *server) cancelOnStop(cancel context.CancelCauseFunc) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-s.stopping:
			cancel(errServerStopping)
		case <-done:
		}
	}()
	return func() { close(done) }
}

// New returns an MCP server exposing svc as the DevWorkWire tools (toolNames)
// (svc may be nil when o.Open is set).
func New(svc Service, o Options) *mcp.Server {
	_, ms := newServer(context.Background(), svc, o)
	return ms
}

// newServer builds the server and reads the gate policy its commit tools'
// descriptions name (Options.Policy, else svc's own), waiting at most
// policyReadWait.
func newServer(ctx context.Context, svc Service, o Options) (*server, *mcp.Server) {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	mode := o.Elicitation
	switch mode {
	case "":
		mode = ElicitationWhenAvailable
	case ElicitationOff, ElicitationWhenAvailable, ElicitationRequired:
	default:
		logger.Warn("unknown elicitation mode; using required", "elicitation", o.Elicitation)
		mode = ElicitationRequired
	}
	open := o.Open
	if open == nil {
		ws := o.Workspace
		open = func(context.Context) (Service, string, error) { return svc, ws, nil }
	}
	s := &server{logger: logger, open: open, elicit: mode, localSet: o.Elicitation != "", pending: newPendingConfirmations(), args: newArgValidator(), stopping: make(chan struct{}), commitTools: map[string]commitTool{}}
	ms := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "DevWorkWire", Version: version(o.Version)}, &mcp.ServerOptions{
		Logger:       sdkLogger(logger),
		Instructions: instructions,
	})
	s.ms = ms
	s.addTools(ms)
	read := o.Policy
	if ps, keeps := svc.(policyService); read == nil && o.Open == nil {
		if !keeps { // no team policy: the default is in force
			read = func(context.Context) (core.GatePolicy, error) { return core.DefaultGatePolicy, nil }
		} else {
			read = ps.GatePolicy
		}
	}
	var known *core.AgentPolicy
	if read != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), policyReadWait)
		if p, err := read(rctx); err == nil {
			known = &p.Agents
		} else {
			logger.Debug("the gate policy is read on the first tool call", "code", core.ErrorCode(err))
		}
		cancel()
	}
	s.describePolicy(known)
	ms.AddReceivingMiddleware(callMiddleware(s))
	return s, ms
}

// stopGrace bounds how long Serve waits, once its context ended, for the
// running tool calls to return after they were cancelled.
const stopGrace = 5 * time.Second

// Serve runs the server over the given streams (stdio: os.Stdin,
// os.Stdout) until the client closes in or ctx is done, and returns nil
// in both cases. Only JSON-RPC messages are written to out.
//
// Every request read before in ends is answered before Serve returns. When
// ctx ends (SIGTERM, SIGINT), running tool calls are cancelled (a commit
// stops between items, reported as such), answered if they return within
// a few seconds, and Serve returns.
func Serve(ctx context.Context, svc Service, o Options, in io.Reader, out io.Writer) error {
	s, ms := newServer(ctx, svc, o)
	w := &lockedWriter{w: out}
	t := &drainTransport{inner: &mcp.IOTransport{Reader: io.NopCloser(guardLines(in, w, s.logger)), Writer: w}}
	ss, err := ms.Connect(context.WithoutCancel(ctx), t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	case <-ctx.Done():
		// Cancel the running calls, let their answers out, then close.
		s.stop()
		grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopGrace)
		defer cancel()
		if c := t.conn(); c != nil && !c.waitAnswered(grace) {
			s.logger.Warn("stopping without waiting any longer for running tool calls", "waited", stopGrace.String())
		}
		closed := make(chan struct{})
		go func() { _ = ss.Close(); close(closed) }()
		select {
		case <-closed:
		case <-grace.Done():
		}
		return nil
	}
}

// sdkLogger passes the SDK's own diagnostics (session connected, run
// start, …) to logger only at Debug, so the default log is one line per
// tool call; the SDK's warnings and errors always pass.
func sdkLogger(logger *slog.Logger) *slog.Logger {
	return slog.New(minLevel{Handler: logger.Handler(), min: slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, l) && (l >= h.min || h.Handler.Enabled(ctx, slog.LevelDebug))
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{Handler: h.Handler.WithAttrs(a), min: h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}

func version(v string) string {
	if v != "" && v != "(devel)" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/devworkwire/devworkwire/mcpserver" && d.Version != "" && d.Version != "(devel)" {
				return d.Version
			}
		}
	}
	return "0.0.0-unknown"
}

// newRunID is the run id of a call that fails before reaching the service
// (core mints every id).
func newRunID() string { return service.NewRunID() }

const instructions = `DevWorkWire puts a planning document (epics, stories, acceptance criteria) into Jira exactly once, behind a preview -> confirm -> commit gate.
Previews and reads write nothing. To write: call import_preview, progress_preview or pull_preview, show the plan to the person, and only after they agree call the matching commit tool with the preview_handle and confirmed: true. Commits write to Jira irreversibly (pull_commit also rewrites the document file). document_export returns existing Jira issues as a planning document and writes nothing.
Failures are JSON-RPC errors whose data is {code, message, details, retryable, run_id}; branch on data.code.`
