package config

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
)

// resolveTLS checks [apiserver.tls]. The files are only required to exist
// and load when use_tls is true.
func resolveTLS(t *fileTLS, useTLS bool, errs *problems) TLS {
	out := TLS{Certificate: t.Certificate, Key: t.Key, CACertificate: t.CACertificate}
	if !useTLS {
		return out
	}
	if t.Certificate == "" {
		errs.field("apiserver.tls.certificate", "is required when apiserver.use_tls is true")
	}
	if t.Key == "" {
		errs.field("apiserver.tls.key", "is required when apiserver.use_tls is true")
	}
	if t.Certificate != "" && t.Key != "" {
		if _, err := tls.LoadX509KeyPair(t.Certificate, t.Key); err != nil {
			errs.field("apiserver.tls", "cannot load certificate %q with key %q: %v", t.Certificate, t.Key, err)
		}
	}
	if t.CACertificate != "" {
		checkCABundle(errs, "apiserver.tls.ca_certificate", t.CACertificate)
	}
	return out
}

// checkCABundle requires a readable file with at least one PEM certificate.
func checkCABundle(errs *problems, key, path string) {
	if !filepath.IsAbs(path) {
		errs.field(key, "must be an absolute path, got %q", path)
		return
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		errs.field(key, "cannot read %q: %v", path, err)
		return
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		errs.field(key, "%q holds no PEM certificate", path)
	}
}
