#!/bin/sh
# Prints the -ldflags that stamp the dwire version into the binary.
v=$(git describe --tags --match 'cli/v*' --always --dirty 2>/dev/null | sed 's#^cli/##')
[ -n "$v" ] || v="0.1.0-dev"
echo "-s -w -X github.com/devworkwire/devworkwire/cli/internal/build.Version=$v"
