package auth

import (
	"errors"
	"fmt"
	"net/mail"
	"unicode"
	"unicode/utf8"

	"github.com/nbutton23/zxcvbn-go"
	"golang.org/x/crypto/bcrypt"
)

// Limits of the first-run rules.
const (
	MaxUsernameLen = 64  // runes
	MaxEmailLen    = 254 // bytes, as in RFC 5321
	MaxPasswordLen = 72  // bytes; bcrypt ignores anything longer, so longer is refused
	// RequiredPasswordScore is the zxcvbn score (0-4) a new password must reach.
	RequiredPasswordScore = 4
)

// Validation errors of the first-run rules. Their texts are the API's error details.
var (
	ErrMissingUserOrEmail = errors.New("missing username or email")
	ErrInvalidEmail       = errors.New("invalid email address")
	ErrInvalidUsername    = errors.New("invalid username")
	ErrWeakPassword       = errors.New("password is too weak")
	ErrPasswordTooLong    = fmt.Errorf("password is too long (at most %d bytes)", MaxPasswordLen)
)

// WeakPasswordError reports a password below RequiredPasswordScore. errors.Is(err,
// ErrWeakPassword) holds; its text starts with ErrWeakPassword's and adds a hint.
type WeakPasswordError struct {
	Score int // zxcvbn score, 0-4
}

func (e *WeakPasswordError) Error() string {
	return fmt.Sprintf("%s (strength %d of %d; use a longer passphrase of several unrelated words, "+
		"or 16+ random characters)", ErrWeakPassword, e.Score, RequiredPasswordScore)
}

// Is makes errors.Is(err, ErrWeakPassword) match.
func (e *WeakPasswordError) Is(target error) bool { return target == ErrWeakPassword }

// ValidateUsername accepts 1 to MaxUsernameLen Unicode letters and digits.
func ValidateUsername(username string) error {
	if username == "" || utf8.RuneCountInString(username) > MaxUsernameLen {
		return ErrInvalidUsername
	}
	for _, r := range username {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return ErrInvalidUsername
		}
	}
	return nil
}

// ValidateEmail accepts a bare address (no display name, no angle brackets) of at most
// MaxEmailLen bytes.
func ValidateEmail(email string) error {
	if email == "" || len(email) > MaxEmailLen {
		return ErrInvalidEmail
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" {
		return ErrInvalidEmail
	}
	return nil
}

// ValidatePassword checks that password is strong enough (zxcvbn score 4, scored against
// the user's other inputs too) and that bcrypt can hash all of it.
func ValidatePassword(password string, userInputs ...string) error {
	if len(password) > MaxPasswordLen {
		return ErrPasswordTooLong
	}
	score := zxcvbn.PasswordStrength(password, userInputs).Score
	if score < RequiredPasswordScore {
		return &WeakPasswordError{Score: score}
	}
	return nil
}

// ValidateNewUser applies the first-run rules in the order the API reports them.
func ValidateNewUser(username, email, fullName, password string) error {
	switch {
	case username == "" || email == "":
		return ErrMissingUserOrEmail
	case ValidateEmail(email) != nil:
		return ErrInvalidEmail
	case ValidateUsername(username) != nil:
		return ErrInvalidUsername
	}
	return ValidatePassword(password, username, email, fullName)
}

// HashPassword returns the bcrypt hash of password.
func HashPassword(password string) (string, error) {
	if len(password) > MaxPasswordLen {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return "", fmt.Errorf("hashing password: %w", err)
	}
	return string(h), nil
}

// dummyHash is compared against when the user does not exist, so that a login for an
// unknown user costs as much as one with a wrong password.
var dummyHash = []byte("$2a$10$7EqJtq98hPqEX7fNZaFWoOhi5BWX4Z3nC0M1rQoqUu9w5pa1yTzC2")

// CheckPassword reports whether password matches hash. An empty hash (no such user) is
// compared against a dummy so both cases take about as long.
func CheckPassword(hash, password string) bool {
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}
