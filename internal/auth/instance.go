package auth

import (
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/garrison-ci/garrison"
)

// InstanceClaims are the claims of the token a runner instance uses on the metadata and
// callback endpoints (instance-api.md §1). The names and the provider_id = pool id quirk
// are GARM's and must stay.
type InstanceClaims struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	PoolID        string `json:"provider_id"`
	Scope         string `json:"scope"`
	Entity        string `json:"entity"`
	CreateAttempt int    `json:"create_attempt"`
	ForgeType     string `json:"forge_type"`
	IsAgent       bool   `json:"is_agent"`
	jwt.RegisteredClaims
}

// claimsOf returns the claims of an instance token for the identity.
func claimsOf(id garrison.InstanceIdentity) InstanceClaims {
	return InstanceClaims{ID: id.ID, Name: id.Name, PoolID: id.PoolID, Scope: string(id.Scope), Entity: id.Entity,
		CreateAttempt: id.CreateAttempt, ForgeType: string(id.ForgeType)}
}

// Identity returns the instance identity the claims carry.
func (c *InstanceClaims) Identity() garrison.InstanceIdentity {
	return garrison.InstanceIdentity{ID: c.ID, Name: c.Name, PoolID: c.PoolID, Scope: garrison.EntityType(c.Scope),
		Entity: c.Entity, CreateAttempt: c.CreateAttempt, ForgeType: garrison.ForgeType(c.ForgeType)}
}

// InstanceTokenGrace is added to the bootstrap timeout to get an instance token's lifetime.
const InstanceTokenGrace = 5 * time.Minute

// MintInstance returns the token of the instance with that identity, valid for
// bootstrapTimeout + InstanceTokenGrace.
func (t *Tokens) MintInstance(id garrison.InstanceIdentity, bootstrapTimeout time.Duration) (string, error) {
	return t.mintInstance(claimsOf(id), bootstrapTimeout)
}

// mintInstance signs instance claims; their issuer and expiry are overwritten.
func (t *Tokens) mintInstance(c InstanceClaims, bootstrapTimeout time.Duration) (string, error) {
	if c.Name == "" {
		return "", errors.New("auth: instance token needs a name")
	}
	c.Issuer = Issuer
	c.ExpiresAt = jwt.NewNumericDate(t.now.now().Add(bootstrapTimeout + InstanceTokenGrace))
	return t.sign(&c)
}

// VerifyInstance checks an instance token's signature, algorithm and expiry and that it
// names an instance and is not an agent token.
func (t *Tokens) VerifyInstance(token string) (*InstanceClaims, error) {
	var c InstanceClaims
	if err := t.parse(token, &c); err != nil {
		return nil, err
	}
	if c.Name == "" || c.IsAgent {
		return nil, ErrTokenClaims
	}
	return &c, nil
}
