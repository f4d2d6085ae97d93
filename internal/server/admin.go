package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/auth"
)

// ResetPassword sets a new password for the user named username in the database of cfg
// (opened directly: run it on the server host) and bumps the user's token generation,
// which revokes every token issued before. It returns the user's name.
func ResetPassword(ctx context.Context, cfg Config, username, password string) (string, error) {
	st, err := OpenStore(ctx, cfg.Database)
	if err != nil {
		return "", err
	}
	defer st.Close()
	u, err := st.UserByName(ctx, username)
	if err != nil {
		if errors.Is(err, garrison.ErrNotFound) {
			return "", fmt.Errorf("no user %q in this database", username)
		}
		return "", err
	}
	if err := auth.ValidatePassword(password, u.Username, u.Email, u.FullName); err != nil {
		return "", err
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return "", err
	}
	_, err = st.UpdateUser(ctx, u.ID, func(u *garrison.User) error {
		u.PasswordHash = hash
		u.Generation++
		return nil
	})
	if err != nil {
		return "", err
	}
	return u.Username, nil
}
