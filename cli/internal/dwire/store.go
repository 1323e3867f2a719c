package dwire

import (
	"context"
	"log/slog"

	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/cli/internal/storeurl"
	"github.com/devworkwire/devworkwire/core"
)

// openStore opens the store named by the configuration (field `store`, or
// DWIRE_STORE_URL); "" is the default SQLite file in the user state folder.
// The prune on open keeps audit records for the file's audit_retention.
func openStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (core.Store, error) {
	return storeurl.Open(ctx, cfg.StoreURL, storeurl.Options{Logger: log, Retention: core.Retention{Audit: cfg.AuditRetention}})
}
