package auth

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateNewUser(t *testing.T) {
	const strong = "correct-Horse-battery-staple-97"
	tests := []struct {
		name                            string
		username, email, full, password string
		want                            error
	}{
		{"ok", "admin", "admin@example.com", "Admin", strong, nil},
		{"unicode username", "Ădmin1", "a@b.co", "", strong, nil},
		{"missing username", "", "a@b.co", "", strong, ErrMissingUserOrEmail},
		{"missing email", "admin", "", "", strong, ErrMissingUserOrEmail},
		{"bad email", "admin", "not-an-email", "", strong, ErrInvalidEmail},
		{"email with name", "admin", "Bob <bob@example.com>", "", strong, ErrInvalidEmail},
		{"email too long", "admin", strings.Repeat("a", 250) + "@b.co", "", strong, ErrInvalidEmail},
		{"username with dash", "ad-min", "a@b.co", "", strong, ErrInvalidUsername},
		{"username with space", "ad min", "a@b.co", "", strong, ErrInvalidUsername},
		{"username too long", strings.Repeat("a", 65), "a@b.co", "", strong, ErrInvalidUsername},
		{"username 64", strings.Repeat("a", 64), "a@b.co", "", strong, nil},
		{"weak", "admin", "a@b.co", "", "password", ErrWeakPassword},
		{"weak short", "admin", "a@b.co", "", "Abc123!", ErrWeakPassword},
		{"empty password", "admin", "a@b.co", "", "", ErrWeakPassword},
		{"too long", "admin", "a@b.co", "", strings.Repeat("xY7!", 19), ErrPasswordTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateNewUser(tt.username, tt.email, tt.full, tt.password)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestWeakPasswordMessage(t *testing.T) {
	err := ValidatePassword("password1")
	var w *WeakPasswordError
	if !errors.As(err, &w) || w.Score >= RequiredPasswordScore {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasPrefix(err.Error(), "password is too weak") {
		t.Errorf("message %q does not start with GARM's text", err)
	}
}

func TestHashAndCheckPassword(t *testing.T) {
	h, err := HashPassword("correct-Horse-battery-staple-97")
	if err != nil {
		t.Fatal(err)
	}
	if !CheckPassword(h, "correct-Horse-battery-staple-97") {
		t.Error("right password refused")
	}
	if CheckPassword(h, "correct-Horse-battery-staple-98") {
		t.Error("wrong password accepted")
	}
	if CheckPassword("", "anything") {
		t.Error("empty hash accepted")
	}
	if _, err := HashPassword(strings.Repeat("a", 73)); !errors.Is(err, ErrPasswordTooLong) {
		t.Errorf("long password: %v", err)
	}
}
