#!/bin/sh
# GoReleaser's before hook (.goreleaser.yaml): writes what the archives and
# the image need besides the binaries into dist-extra/:
#   man/*.1, completions/   (cli/internal/gendocs, from the cobra commands)
#   docker/Dockerfile       (cli/cmd/dwire/Dockerfile, the one image
#                            definition, with the CA bundle's path in the
#                            release build context)
#   docker/ca-certificates.crt (this host's CA bundle)
# Usage: scripts/release-prepare.sh VERSION COMMIT_UNIX_TIME
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 VERSION COMMIT_UNIX_TIME" >&2
	exit 2
fi
out=dist-extra
rm -rf "$out"
mkdir -p "$out/docker"
go run ./cli/internal/gendocs -out "$out" -version "$1" -date "$2"

# GoReleaser puts the binary at the root of the build context and extra
# files under their own path, so only the CA bundle's COPY source changes.
src=cli/cmd/dwire/Dockerfile
sed 's#^COPY ca-certificates.crt #COPY dist-extra/docker/ca-certificates.crt #' "$src" >"$out/docker/Dockerfile"
if ! grep -q '^COPY dist-extra/docker/ca-certificates.crt ' "$out/docker/Dockerfile" || ! grep -q '^COPY dwire ' "$out/docker/Dockerfile"; then
	echo "release-prepare: $src no longer has the lines 'COPY ca-certificates.crt …' and 'COPY dwire …' this hook expects; update scripts/release-prepare.sh" >&2
	exit 1
fi

for ca in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
	if [ -s "$ca" ]; then
		cp "$ca" "$out/docker/ca-certificates.crt"
		exit 0
	fi
done
echo "release-prepare: no CA bundle found on this host (looked for /etc/ssl/certs/ca-certificates.crt, /etc/pki/tls/certs/ca-bundle.crt, /etc/ssl/cert.pem); the image needs one to reach Jira Cloud over TLS" >&2
exit 1
