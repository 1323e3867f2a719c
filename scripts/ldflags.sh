#!/bin/sh
# Prints the -ldflags that stamp the dwire version (scripts/version.sh)
# into the binary.
echo "-s -w -X github.com/devworkwire/devworkwire/cli/internal/build.Version=$(sh "$(dirname "$0")/version.sh")"
