package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/devworkwire/devworkwire/jira/jiratest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run parses flags, serves until ctx is done and returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mockjira", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free port)")
	project := fl.String("project", "", "project key, or keys separated by commas (DEMO,OTHER: the first is the default) (default "+jiratest.DefaultProject+")")
	email := fl.String("email", "", "the user's e-mail (default "+jiratest.DefaultEmail+")")
	token := fl.String("token", "", "the user's API token (default $MOCKJIRA_TOKEN, else "+jiratest.DefaultToken+")")
	fieldName := fl.String("field-name", "", "name of the reference custom field (default \""+jiratest.DefaultFieldName+"\")")
	latency := fl.Duration("latency", 0, "latency added to every request")
	lag := fl.Duration("search-lag", 0, "how long a write stays invisible to search")
	rateLimit := fl.Float64("rate-limit", 0, "requests per second (token bucket); 0 = off")
	burstLimit := fl.Float64("burst-limit", 0, "Jira's burst limit: requests per second per endpoint and method (429 jira-burst-based); 0 = off")
	burstSize := fl.Int("burst-size", 0, "requests each endpoint may send at once after a quiet spell (default: the burst limit, at least 1)")
	issueWrites := fl.Int("issue-write-limit", 0, "Jira's per-issue write limit: writes to one issue per -issue-write-window (429 jira-per-issue-on-write); 0 = off")
	issueWindow := fl.Duration("issue-write-window", time.Second, "the per-issue write limit's sliding window")
	seed := fl.String("seed", "", "JSON seed file (site, project, user, issues, faults ...)")
	faults := fl.String("faults", "", "JSON file with an array of faults")
	dupField := fl.Bool("duplicate-field-name", false, "also list a multi-line decoy field with the reference field's name")
	verbose := fl.Bool("v", false, "log every request")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "mockjira: unexpected arguments %q\n", fl.Args())
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	var sf jiratest.SeedFile
	if *seed != "" {
		var err error
		if sf, err = jiratest.LoadSeedFile(*seed); err != nil {
			fmt.Fprintf(stderr, "mockjira: %v\n", err)
			return 2
		}
	}
	o := sf.Options()
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["project"] {
		o.Project = *project
	}
	if set["email"] {
		o.Email = *email
	}
	switch {
	case set["token"]:
		o.Token = *token
	case getenv("MOCKJIRA_TOKEN") != "":
		o.Token = getenv("MOCKJIRA_TOKEN")
	}
	if set["field-name"] {
		o.FieldName = *fieldName
	}
	if set["latency"] {
		o.Latency = *latency
	}
	if set["search-lag"] {
		o.SearchLag = *lag
	}
	if set["rate-limit"] {
		o.RateLimit = *rateLimit
	}
	if set["burst-limit"] {
		o.Limits.BurstPerSec = *burstLimit
	}
	if set["burst-size"] {
		o.Limits.BurstSize = *burstSize
	}
	if set["issue-write-limit"] {
		o.Limits.IssueWrites = *issueWrites
	}
	if set["issue-write-window"] {
		o.Limits.IssueWindow = *issueWindow
	}
	if set["duplicate-field-name"] {
		o.DuplicateFieldName = *dupField
	}
	o.Logger = log
	srv := jiratest.New(o)
	if err := srv.ApplySeed(sf); err != nil {
		fmt.Fprintf(stderr, "mockjira: seed: %v\n", err)
		return 2
	}
	if *faults != "" {
		fs, err := jiratest.LoadFaultsFile(*faults)
		if err != nil {
			fmt.Fprintf(stderr, "mockjira: %v\n", err)
			return 2
		}
		for _, f := range fs {
			_ = srv.AddFault(f)
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "mockjira: listen on %s: %v\n", *addr, err)
		return 1
	}
	// "self" links follow the Host the client used (or the seed's site);
	// the printed URL names loopback when listening on all interfaces.
	url := "http://" + ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok {
		if tcp.IP.IsUnspecified() {
			url = "http://" + net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
		}
		if !tcp.IP.IsLoopback() {
			log.Warn("listening on a non-loopback address", "addr", ln.Addr().String())
		}
	}
	fmt.Fprintf(stdout, "MOCKJIRA_URL=%s\n", url)
	log.Info("mockjira listening", "url", url, "project", srv.ProjectKey(), "projects", strings.Join(srv.ProjectKeys(), ","), "email", srv.Email(), "field", srv.FieldName())

	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "mockjira: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	log.Info("mockjira shutting down")
	srv.Close() // release hanging requests
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return 0
}
