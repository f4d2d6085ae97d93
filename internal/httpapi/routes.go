package httpapi

import (
	"net/http"

	"github.com/garrison-ci/garrison"
)

// entityKind describes one of the three entity route families.
type entityKind struct {
	typ     garrison.EntityType
	segment string // path segment: repositories, organizations, enterprises
	noun    string // for messages: repository, organization, enterprise
	webhook bool   // has webhook routes
}

var (
	repoKind = entityKind{garrison.Repository, "repositories", "repository", true}
	orgKind  = entityKind{garrison.Organization, "organizations", "organization", true}
	entKind  = entityKind{garrison.Enterprise, "enterprises", "enterprise", false}
)

// registerAPI registers every admin route of rest-api.md §3. Paths arrive with any
// trailing slash removed.
func (s *Server) registerAPI() {
	c, m := s.ctrlAPI, s.api
	c.HandleFunc("GET "+apiPrefix+"/controller", s.handleGetController)
	c.HandleFunc("PUT "+apiPrefix+"/controller", s.handleUpdateController)
	c.HandleFunc("/", notFoundHandler)

	p := apiPrefix
	m.HandleFunc("GET "+p+"/controller-info", s.handleGetController)
	m.HandleFunc("GET "+p+"/providers", s.handleListProviders)
	m.HandleFunc("GET "+p+"/jobs", s.handleListJobs)
	m.HandleFunc("GET "+p+"/metrics-token", s.handleMetricsToken)

	for _, f := range []garrison.ForgeType{garrison.GitHub, garrison.Gitea} {
		s.registerForge(m, f)
	}
	m.HandleFunc("GET "+p+"/credentials", s.handleListCredentials(garrison.GitHub))

	for _, k := range []entityKind{repoKind, orgKind, entKind} {
		s.registerEntity(m, k)
	}

	m.HandleFunc("GET "+p+"/pools", s.handleListAllPools)
	m.HandleFunc("GET "+p+"/pools/{poolID}", s.handleGetPool(nil))
	m.HandleFunc("PUT "+p+"/pools/{poolID}", s.handleUpdatePool(nil))
	m.HandleFunc("DELETE "+p+"/pools/{poolID}", s.handleDeletePool(nil))
	m.HandleFunc("GET "+p+"/pools/{poolID}/instances", s.handleListPoolInstances)
	m.HandleFunc("POST "+p+"/pools/{poolID}/runners/rotate", s.handleRotateRunners)

	m.HandleFunc("GET "+p+"/instances", s.handleListInstances(nil))
	m.HandleFunc("GET "+p+"/instances/{name}", s.handleGetInstance)
	m.HandleFunc("DELETE "+p+"/instances/{name}", s.handleDeleteInstance)

	s.registerAgentRoutes()
	m.HandleFunc("/", notFoundHandler)
}

// registerForge registers the endpoint and credentials routes of one forge type.
func (s *Server) registerForge(m *http.ServeMux, f garrison.ForgeType) {
	p := apiPrefix + "/" + string(f)
	m.HandleFunc("GET "+p+"/endpoints", s.handleListEndpoints(f))
	m.HandleFunc("POST "+p+"/endpoints", s.handleCreateEndpoint(f))
	m.HandleFunc("GET "+p+"/endpoints/{name}", s.handleGetEndpoint(f))
	m.HandleFunc("PUT "+p+"/endpoints/{name}", s.handleUpdateEndpoint(f))
	m.HandleFunc("DELETE "+p+"/endpoints/{name}", s.handleDeleteEndpoint(f))
	m.HandleFunc("GET "+p+"/credentials", s.handleListCredentials(f))
	m.HandleFunc("POST "+p+"/credentials", s.handleCreateCredentials(f))
	m.HandleFunc("GET "+p+"/credentials/{id}", s.handleGetCredentials(f))
	m.HandleFunc("PUT "+p+"/credentials/{id}", s.handleUpdateCredentials(f))
	m.HandleFunc("DELETE "+p+"/credentials/{id}", s.handleDeleteCredentials(f))
}

// registerEntity registers the routes of one entity family.
func (s *Server) registerEntity(m *http.ServeMux, k entityKind) {
	p := apiPrefix + "/" + k.segment
	kp := &k
	m.HandleFunc("GET "+p, s.handleListEntities(k))
	m.HandleFunc("POST "+p, s.handleCreateEntity(k))
	m.HandleFunc("GET "+p+"/{id}", s.handleGetEntity(k))
	m.HandleFunc("PUT "+p+"/{id}", s.handleUpdateEntity(k))
	m.HandleFunc("DELETE "+p+"/{id}", s.handleDeleteEntity(k))
	m.HandleFunc("GET "+p+"/{id}/pools", s.handleListEntityPools(k))
	m.HandleFunc("POST "+p+"/{id}/pools", s.handleCreatePool(k))
	m.HandleFunc("GET "+p+"/{id}/pools/{poolID}", s.handleGetPool(kp))
	m.HandleFunc("PUT "+p+"/{id}/pools/{poolID}", s.handleUpdatePool(kp))
	m.HandleFunc("DELETE "+p+"/{id}/pools/{poolID}", s.handleDeletePool(kp))
	m.HandleFunc("GET "+p+"/{id}/instances", s.handleListInstances(kp))
	if k.webhook && s.opts.EnableWebhookManagement && s.opts.Forge != nil {
		m.HandleFunc("POST "+p+"/{id}/webhook", s.handleInstallWebhook(k))
		m.HandleFunc("GET "+p+"/{id}/webhook", s.handleGetWebhook(k))
		m.HandleFunc("DELETE "+p+"/{id}/webhook", s.handleUninstallWebhook(k))
	}
}

func notFoundHandler(w http.ResponseWriter, _ *http.Request) { writeNotFound(w) }
