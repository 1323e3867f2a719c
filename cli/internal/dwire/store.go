package dwire

import (
	"context"
	"log/slog"

	"github.com/devworkwire/devworkwire/cli/internal/config"
	"github.com/devworkwire/devworkwire/core"
)

func openStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (core.Store, error) {
	return nil, core.Errorf(core.CodeInternal, "The state store is not available in this build yet (waiting for cli/internal/storeurl).")
}
