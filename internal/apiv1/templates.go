package apiv1

import "time"

// Template is a runner install template (rest-api-2.md §3.2). Data is the template
// source; JSON carries it as base64, and lists carry null.
type Template struct {
	ID          uint      `json:"id"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	OSType      string    `json:"os_type"`
	ForgeType   string    `json:"forge_type,omitempty"`
	Data        []byte    `json:"data"`
	Owner       string    `json:"owner_id,omitempty"`
}

// CreateTemplateParams is the body of POST /templates; Data travels as base64.
type CreateTemplateParams struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Data        []byte `json:"data"`
	OSType      string `json:"os_type"`
	ForgeType   string `json:"forge_type"`
}

// UpdateTemplateParams is the body of PUT /templates/{id}; nil fields are unchanged, and
// so is empty Data.
type UpdateTemplateParams struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Data        []byte  `json:"data"`
}

// RestoreTemplateRequest is the body of POST /templates/restore.
type RestoreTemplateRequest struct {
	Forge      string `json:"forge,omitempty"`
	OSType     string `json:"os_type,omitempty"`
	RestoreAll bool   `json:"restore_all,omitempty"`
}
