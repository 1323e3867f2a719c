# The dwire container image (.goreleaser.yaml, `dockers`): the static
# binary on an empty base, the build host's CA bundle for Jira Cloud's TLS,
# a non-root user, and /state for the default SQLite store:
#
#   docker run --rm -it -v "$PWD:/work" -v dwire-state:/state \
#     -e JIRA_API_TOKEN ghcr.io/devworkwire/dwire:VERSION import plan.md
FROM scratch
COPY dist-extra/docker/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --chown=65532:65532 dist-extra/docker/state /state
COPY dwire /dwire
ENV XDG_STATE_HOME=/state HOME=/state
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/dwire"]
