# garrison's container image: one static binary (CGO_ENABLED=0) on an empty base image,
# run as a non-root user. Build from the repository root (Docker or Podman):
#
#   docker build --build-arg REVISION=$(git rev-parse HEAD) --build-arg VERSION=v1.2.3 -t garrison .
#   docker run -p 9997:9997 -v garrison-data:/var/lib/garrison garrison
#
# The build context has no .git (see .dockerignore), so the commit is passed as REVISION
# and linked in; `garrison version` and /metrics (garrison_build_info) show it. Providers
# are executables garrison runs: add them in an image built FROM this one, with a config
# file that names them (--config /etc/garrison/config.toml).

ARG GO_VERSION=1.26
FROM docker.io/library/golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
ARG REVISION=""
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/garrison-ci/garrison/internal/buildinfo.version=${VERSION} -X github.com/garrison-ci/garrison/internal/buildinfo.revision=${REVISION}" \
      -o /out/garrison ./cmd/garrison
# The user garrison (65532) and its data directory, for the empty final image.
RUN mkdir -p /out/root/etc /out/root/var/lib/garrison \
 && echo 'garrison:x:65532:65532:garrison:/var/lib/garrison:/sbin/nologin' > /out/root/etc/passwd \
 && echo 'garrison:x:65532:' > /out/root/etc/group

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/root/etc/ /etc/
COPY --from=build --chown=65532:65532 /out/root/var/lib/garrison /var/lib/garrison
COPY --from=build /out/garrison /usr/local/bin/garrison
USER 65532:65532
ENV HOME=/var/lib/garrison
VOLUME ["/var/lib/garrison"]
EXPOSE 9997
ENTRYPOINT ["/usr/local/bin/garrison"]
CMD ["server", "--listen", "0.0.0.0:9997", "--data-dir", "/var/lib/garrison"]
