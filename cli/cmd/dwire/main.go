// Command dwire puts a planning document into Jira exactly once, behind a
// preview → confirm → commit gate. See `dwire --help`.
package main

import (
	"os"

	"github.com/devworkwire/devworkwire/cli/internal/dwire"
)

func main() { os.Exit(dwire.Main()) }
