package dwire

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"slices"

	"github.com/devworkwire/devworkwire/cli/internal/build"
	"github.com/devworkwire/devworkwire/cli/internal/cmdutil"
	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/iostreams"
	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
	"github.com/devworkwire/devworkwire/jira"
)

// NewFactory returns the production Factory: the Jira adapter, the store
// opened by URL and service.NewWorkItemService.
func NewFactory(ios *iostreams.IOStreams, getenv func(string) string) *cmdutil.Factory {
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	return &cmdutil.Factory{
		IOStreams:    ios,
		Getenv:       getenv,
		WorkDir:      wd,
		Version:      build.String(),
		RunID:        cmdutil.NewRunID(),
		OpenProvider: openJira,
		OpenStore:    openStore,
		DetectSite: func(ctx context.Context, site string) (string, string, error) {
			return jira.DetectDeployment(ctx, site, nil)
		},
		FindCloudID: func(ctx context.Context, site string) (string, error) {
			return jira.FindCloudID(ctx, site, nil)
		},
		NewService: newService,
	}
}

func openJira(_ context.Context, cfg *config.Config, token string, log *slog.Logger) (core.WorkItemProvider, error) {
	return jira.New(jiraConfig(cfg, token, log))
}

// jiraConfig maps the configuration onto the Jira adapter's.
func jiraConfig(cfg *config.Config, token string, log *slog.Logger) jira.Config {
	return jira.Config{
		BaseURL:                 cfg.APIURL,
		SiteURL:                 cfg.Site,
		Deployment:              cfg.Deployment,
		Email:                   cfg.Email,
		Token:                   token,
		Project:                 cfg.Project,
		ReferenceField:          cfg.ReferenceField,
		EpicType:                cfg.EpicType,
		StoryType:               cfg.StoryType,
		SubtaskType:             cfg.SubtaskType,
		AcceptanceCriteriaField: cfg.AcceptanceCriteriaField,
		MaxInFlight:             cfg.MaxInFlight,
		CustomFields:            cfg.CustomFields,
		EstimateField:           cfg.EstimateField,
		Users:                   cfg.Users,
		TransitionFields:        cfg.TransitionFields,
		Logger:                  log,
	}
}

// newService builds the service for the CLI commands and `dwire mcp`
// alike (both go through Factory.Service).
func newService(p core.WorkItemProvider, s core.Store, cfg *config.Config, log *slog.Logger) cmdutil.Service {
	return service.NewWorkItemService(serviceOptions(p, s, cfg, log))
}

// serviceOptions maps the configuration onto service.ServiceOptions.
func serviceOptions(p core.WorkItemProvider, s core.Store, cfg *config.Config, log *slog.Logger) service.ServiceOptions {
	// search_lag_window: 0s means "hold nothing back": core takes a set
	// zero as zero (nil would be its default).
	lag := cfg.SearchLagWindow
	return service.ServiceOptions{
		Provider:        p,
		Store:           s,
		Logger:          log,
		PreviewTTL:      cfg.PreviewTTL,
		SearchLagWindow: &lag,
		WritesInFlight:  cfg.MaxInFlight, // 0 → core's default
		CommitLockLease: cfg.CommitLockLease,
		Fields:          service.FieldOptions{Custom: cfg.CustomNames(), Defaults: cfg.Defaults, People: people(cfg.Users)},
		Rank:            cfg.Rank,
	}
}

// people reverses the configuration's users: (e-mail or name → account
// id): how a pull writes a person (the first name in sorted order when
// several map to one account).
func people(users map[string]string) map[string]string {
	out := map[string]string{}
	for _, who := range slices.Sorted(maps.Keys(users)) {
		if _, seen := out[users[who]]; !seen {
			out[users[who]] = who
		}
	}
	return out
}
