package garrison

import "time"

// User is the single administrator of a garrison controller.
type User struct {
	ID           string // UUID
	Username     string
	Email        string
	FullName     string
	PasswordHash string // never leaves the server
	Enabled      bool
	IsAdmin      bool
	Generation   uint // bumped by a password reset; tokens of older generations are refused
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Controller holds the settings of this garrison installation.
type Controller struct {
	ID                   string // UUID, generated once
	MetadataURL          string
	CallbackURL          string
	WebhookURL           string
	AgentURL             string
	AgentReleasesURL     string
	EnableAgentToolsSync bool
	AgentVersion         string
	AllowInsecureAgent   bool
	MinimumJobAgeBackoff uint // seconds
	CACertBundle         []byte
	SealSalt             []byte // salt of the key that seals secrets at rest
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// EffectiveAgentURL is the agent URL, or scheme://host of the callback URL when unset.
func (c Controller) EffectiveAgentURL() string {
	if c.AgentURL != "" {
		return c.AgentURL
	}
	return schemeHost(c.CallbackURL)
}

// WebhookURLForController is webhook_url joined with the controller id, or "" when unset.
func (c Controller) WebhookURLForController() string {
	if c.WebhookURL == "" {
		return ""
	}
	u := c.WebhookURL
	for len(u) > 0 && u[len(u)-1] == '/' {
		u = u[:len(u)-1]
	}
	return u + "/" + c.ID
}

// URLsConfigured reports whether the metadata, callback and agent URLs are all set.
func (c Controller) URLsConfigured() bool {
	return c.MetadataURL != "" && c.CallbackURL != "" && c.EffectiveAgentURL() != ""
}
