package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// SecretPrefix starts every secret, as Standard Webhooks writes them.
const SecretPrefix = "whsec_"

// NewSecret returns a new secret: whsec_ and 32 random bytes in base64.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// ErrBadSecret is a secret that is not whsec_<base64>.
var ErrBadSecret = errors.New("webhook secret: want whsec_ and base64")

// Sign returns the webhook-signature header of a message: "v1,<base64 HMAC-SHA256>" of
// "{id}.{timestamp}.{body}" under each secret's key (the base64 after whsec_), separated
// by spaces — two during a rotation's grace, so a receiver holding either verifies.
func Sign(secrets []string, id string, timestamp int64, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
		if err != nil || !strings.HasPrefix(s, SecretPrefix) || len(key) == 0 {
			return "", ErrBadSecret
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id))
		mac.Write([]byte{'.'})
		mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
		mac.Write([]byte{'.'})
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
