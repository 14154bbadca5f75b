package znodes

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
)

// UUID is Kafka's Uuid (topic ids): 16 bytes, written as URL-safe base64
// without padding (22 characters). The zero value means "no id".
type UUID [16]byte

// metadataTopicID is Kafka's reserved Uuid(0, 1).
func metadataTopicID() UUID { return UUID{15: 1} }

// IsZero reports whether u is the all-zero id, which Kafka never assigns.
func (u UUID) IsZero() bool { return u == UUID{} }

// String returns Kafka's text form.
func (u UUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// ParseUUID parses Kafka's text form. Like Uuid.fromString it accepts the
// 22-character unpadded form and the 24-character form with "==" padding.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	body := s
	if len(s) == 24 && strings.HasSuffix(s, "==") {
		body = s[:22]
	}
	if len(body) != 22 {
		return u, fmt.Errorf("uuid %q: want 22 base64url characters", clip(s))
	}
	for i := 0; i < len(body); i++ {
		if !isBase64URL(body[i]) {
			return u, fmt.Errorf("uuid %q: invalid character %q", clip(s), body[i])
		}
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(b) != 16 {
		return u, fmt.Errorf("uuid %q: not 16 bytes of base64url", clip(s))
	}
	copy(u[:], b)
	return u, nil
}

func isBase64URL(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// NewTopicID draws a random topic id from r (normally crypto/rand.Reader)
// following Kafka's Uuid.randomUuid: a version-4 UUID that is not zero, not
// the reserved metadata topic id, and whose text form does not start with
// '-' (such ids would look like command-line flags).
func NewTopicID(r io.Reader) (UUID, error) {
	for {
		u, err := randomV4(r)
		if err != nil {
			return UUID{}, err
		}
		if !u.IsZero() && u != metadataTopicID() && !strings.HasPrefix(u.String(), "-") {
			return u, nil
		}
	}
}

// NewClusterID draws a cluster id the way a Kafka broker does when
// /cluster/id is missing: a random version-4 UUID in base64url text form.
func NewClusterID(r io.Reader) (string, error) {
	u, err := randomV4(r)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

func randomV4(r io.Reader) (UUID, error) {
	var u UUID
	if _, err := io.ReadFull(r, u[:]); err != nil {
		return u, fmt.Errorf("random uuid: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // IETF variant
	return u, nil
}
