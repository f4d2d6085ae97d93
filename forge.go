package garrison

import "time"

// ForgeType names the kind of forge an endpoint speaks.
type ForgeType string

// Forge types.
const (
	GitHub ForgeType = "github"
	Gitea  ForgeType = "gitea"
)

// Valid reports whether t is a known forge type.
func (t ForgeType) Valid() bool { return t == GitHub || t == Gitea }

// AuthType says how credentials authenticate to the forge.
type AuthType string

// Authentication types.
const (
	AuthPAT AuthType = "pat" // personal access token (GitHub, Gitea)
	AuthApp AuthType = "app" // GitHub App installation (GitHub only)
)

// Default values for the built-in github.com endpoint and Gitea endpoints.
const (
	GitHubComEndpoint        = "github.com"
	GitHubComBaseURL         = "https://github.com"
	GitHubComAPIBaseURL      = "https://api.github.com/"
	GitHubComUploadBaseURL   = "https://uploads.github.com/"
	DefaultGiteaToolsURL     = "https://gitea.com/api/v1/repos/gitea/runner/releases"
	DefaultAgentReleasesURL  = "https://api.github.com/repos/cloudbase/garm-agent/releases"
	DefaultMinimumJobAgeSecs = 30
)

// Endpoint is a forge installation: github.com, a GitHub Enterprise Server, or a Gitea server.
// Names are unique across forge types and compared case-insensitively.
type Endpoint struct {
	Name                     string
	Description              string
	Type                     ForgeType
	BaseURL                  string // web URL, e.g. https://github.com
	APIBaseURL               string // REST API root, e.g. https://api.github.com/ or https://ghes/api/v3/
	UploadBaseURL            string // GitHub only
	CACertBundle             []byte // PEM, optional
	ToolsMetadataURL         string // Gitea only
	UseInternalToolsMetadata bool   // Gitea only
	CreatedAt                time.Time
	UpdatedAt                time.Time
}

// Credentials authenticate garrison to one endpoint. The secret fields are kept sealed at
// rest by the store and never leave the server through the API.
type Credentials struct {
	ID          uint
	Name        string
	Description string
	ForgeType   ForgeType
	AuthType    AuthType
	Endpoint    string // endpoint name

	// Secrets.
	PAT            string // AuthPAT
	AppID          int64  // AuthApp
	InstallationID int64  // AuthApp
	PrivateKey     []byte // AuthApp, PEM

	CreatedAt time.Time
	UpdatedAt time.Time
}

// RateLimit is the forge's API budget for one credential, as last observed.
type RateLimit struct {
	Limit     int
	Used      int
	Remaining int
	Reset     int64 // unix seconds
}
