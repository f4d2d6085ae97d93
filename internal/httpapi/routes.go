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
	fiKind   = entityKind{garrison.ForgeInstance, "forge-instances", "forge instance", true}
)

// registerAPI registers every admin route of rest-api.md §3. Paths arrive with any
// trailing slash removed.
func (s *Server) registerAPI() {
	c, m := s.ctrlAPI, s.api
	s.route(c, "GET "+apiPrefix+"/controller", s.handleGetController)
	s.route(c, "PUT "+apiPrefix+"/controller", s.handleUpdateController)
	c.HandleFunc("/", notFoundHandler)

	p := apiPrefix
	s.route(m, "GET "+p+"/controller-info", s.handleGetController)
	s.route(m, "GET "+p+"/providers", s.handleListProviders)
	s.route(m, "GET "+p+"/jobs", s.handleListJobs)
	s.route(m, "GET "+p+"/metrics-token", s.handleMetricsToken)

	for _, f := range []garrison.ForgeType{garrison.GitHub, garrison.Gitea} {
		s.registerForge(m, f)
	}
	s.route(m, "GET "+p+"/credentials", s.handleListCredentials(garrison.GitHub))

	for _, k := range []entityKind{repoKind, orgKind, entKind} {
		s.registerEntity(m, k)
	}
	s.registerForgeInstances(m)
	s.registerProxies(m)
	s.registerObjects(m)

	s.route(m, "GET "+p+"/pools", s.handleListAllPools)
	s.route(m, "GET "+p+"/pools/{poolID}", s.handleGetPool(nil))
	s.route(m, "PUT "+p+"/pools/{poolID}", s.handleUpdatePool(nil))
	s.route(m, "DELETE "+p+"/pools/{poolID}", s.handleDeletePool(nil))
	s.route(m, "GET "+p+"/pools/{poolID}/instances", s.handleListPoolInstances)
	s.route(m, "GET "+p+"/pools/{poolID}/health", s.handlePoolHealth)
	s.route(m, "POST "+p+"/pools/{poolID}/runners/rotate", s.handleRotateRunners)

	s.registerScaleSets(m)

	s.route(m, "GET "+p+"/instances", s.handleListInstances(nil))
	s.route(m, "GET "+p+"/instances/{name}", s.handleGetInstance)
	s.route(m, "DELETE "+p+"/instances/{name}", s.handleDeleteInstance)

	s.registerTemplates(m)
	if s.opts.Cluster != nil {
		s.route(m, "GET "+p+"/replicas", s.handleListReplicas)
		s.route(m, "GET "+p+"/claims", s.handleListClaims)
	}
	s.registerAgentRoutes()
	s.registerStreams()
	m.HandleFunc("/", notFoundHandler)
}

// registerForge registers the endpoint and credentials routes of one forge type.
func (s *Server) registerForge(m *http.ServeMux, f garrison.ForgeType) {
	p := apiPrefix + "/" + string(f)
	s.route(m, "GET "+p+"/endpoints", s.handleListEndpoints(f))
	s.route(m, "POST "+p+"/endpoints", s.handleCreateEndpoint(f))
	s.route(m, "GET "+p+"/endpoints/{name}", s.handleGetEndpoint(f))
	s.route(m, "PUT "+p+"/endpoints/{name}", s.handleUpdateEndpoint(f))
	s.route(m, "DELETE "+p+"/endpoints/{name}", s.handleDeleteEndpoint(f))
	s.route(m, "GET "+p+"/credentials", s.handleListCredentials(f))
	s.route(m, "POST "+p+"/credentials", s.handleCreateCredentials(f))
	s.route(m, "GET "+p+"/credentials/{id}", s.handleGetCredentials(f))
	s.route(m, "PUT "+p+"/credentials/{id}", s.handleUpdateCredentials(f))
	s.route(m, "DELETE "+p+"/credentials/{id}", s.handleDeleteCredentials(f))
}

// registerEntity registers the routes of one entity family.
func (s *Server) registerEntity(m *http.ServeMux, k entityKind) {
	p := apiPrefix + "/" + k.segment
	s.route(m, "GET "+p, s.handleListEntities(k))
	s.route(m, "POST "+p, s.handleCreateEntity(k))
	s.route(m, "GET "+p+"/{id}", s.handleGetEntity(k))
	s.route(m, "PUT "+p+"/{id}", s.handleUpdateEntity(k))
	s.route(m, "DELETE "+p+"/{id}", s.handleDeleteEntity(k))
	s.registerEntityChildren(m, k)
}

// registerForgeInstances registers the forge-instance routes (rest-api-2 §4.1).
func (s *Server) registerForgeInstances(m *http.ServeMux) {
	p := apiPrefix + "/" + fiKind.segment
	s.route(m, "GET "+p, s.handleListForgeInstances)
	s.route(m, "POST "+p, s.handleCreateForgeInstance)
	s.route(m, "GET "+p+"/{id}", s.handleGetForgeInstance)
	s.route(m, "PUT "+p+"/{id}", s.handleUpdateForgeInstance)
	s.route(m, "DELETE "+p+"/{id}", s.handleDeleteForgeInstance)
	s.registerEntityChildren(m, fiKind)
}

// registerEntityChildren registers the pool, instance and webhook routes under an entity.
func (s *Server) registerEntityChildren(m *http.ServeMux, k entityKind) {
	p := apiPrefix + "/" + k.segment
	kp := &k
	s.route(m, "GET "+p+"/{id}/pools", s.handleListEntityPools(k))
	s.route(m, "POST "+p+"/{id}/pools", s.handleCreatePool(k))
	s.route(m, "GET "+p+"/{id}/pools/{poolID}", s.handleGetPool(kp))
	s.route(m, "PUT "+p+"/{id}/pools/{poolID}", s.handleUpdatePool(kp))
	s.route(m, "DELETE "+p+"/{id}/pools/{poolID}", s.handleDeletePool(kp))
	s.route(m, "GET "+p+"/{id}/instances", s.handleListInstances(kp))
	s.registerEntityScaleSets(m, k)
	if k.webhook && s.opts.EnableWebhookManagement && s.opts.Forge != nil {
		s.route(m, "POST "+p+"/{id}/webhook", s.handleInstallWebhook(k))
		s.route(m, "GET "+p+"/{id}/webhook", s.handleGetWebhook(k))
		s.route(m, "DELETE "+p+"/{id}/webhook", s.handleUninstallWebhook(k))
	}
}

func notFoundHandler(w http.ResponseWriter, _ *http.Request) { writeNotFound(w) }
