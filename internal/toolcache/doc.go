// Package toolcache is the runner-binary cache: garrison downloads the runner archives
// the forges list (GitHub's runners/downloads, Gitea's runner releases) once into its
// object store and serves them to instances, so that runners without access to the
// forge's download host (air-gapped) install from garrison itself.
//
// A Cache wraps the forge's runner download list. For the reconciler it fetches what is
// not cached yet (RunnerDownloads; once per archive, checked against the forge's
// checksum) and rewrites each cached entry's download_url to
// <metadata_url>/runner-tools/<object id>/<file name>; the instance API sees the same
// rewrite without fetching (Cached). Handler serves those URLs without a token: they
// hold only the runner archives, which the forges publish to anyone. An archive that
// cannot be fetched leaves the forge's URL in place (logged, retried after a pause).
//
// The archives are objects tagged category=runner-tools (plus os=, arch= and version=
// tags where the forge says them): `garm-cli object list --tags category=runner-tools`
// lists them and deleting one makes garrison fetch it again. As object content lives in
// the database, every replica serves every cached archive.
package toolcache
