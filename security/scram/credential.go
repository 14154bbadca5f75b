package scram

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Credential is what the server keeps for one user and mechanism. It is
// not secret in the sense a password is (it cannot be replayed as one),
// but it allows an offline dictionary attack, which is why Kafka keeps
// /config/users readable by the broker only.
type Credential struct {
	Salt       []byte
	StoredKey  []byte
	ServerKey  []byte
	Iterations int
}

// The keys of the stored credential string.
const (
	keySalt       = "salt"
	keyStoredKey  = "stored_key"
	keyServerKey  = "server_key"
	keyIterations = "iterations"
)

// String renders c as Kafka stores it:
// "salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>".
func (c Credential) String() string {
	enc := base64.StdEncoding
	return keySalt + "=" + enc.EncodeToString(c.Salt) +
		"," + keyStoredKey + "=" + enc.EncodeToString(c.StoredKey) +
		"," + keyServerKey + "=" + enc.EncodeToString(c.ServerKey) +
		"," + keyIterations + "=" + strconv.Itoa(c.Iterations)
}

// ErrInvalidCredential is wrapped by every ParseCredential failure. The
// errors never quote the stored text, which holds key material.
var ErrInvalidCredential = errors.New("invalid SCRAM credential")

// ParseCredential reads Kafka's stored form, as ScramCredentialUtils does:
// pairs split at ',' then at each pair's first '=', exactly the four keys
// (a repeated key counts once, the last value winning), standard base64
// values and a decimal iteration count.
func ParseCredential(s string) (Credential, error) {
	props := make(map[string]string, 4)
	// Java's split(",") drops trailing empty tokens; an empty token
	// elsewhere fails the '=' check below, as in Kafka.
	for _, tok := range strings.Split(strings.TrimRight(s, ","), ",") {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" {
			return Credential{}, fmt.Errorf("%w: a pair is not key=value", ErrInvalidCredential)
		}
		props[k] = v
	}
	for _, k := range []string{keySalt, keyStoredKey, keyServerKey, keyIterations} {
		if _, ok := props[k]; !ok {
			return Credential{}, fmt.Errorf("%w: %s missing", ErrInvalidCredential, k)
		}
	}
	if len(props) != 4 {
		return Credential{}, fmt.Errorf("%w: %d keys, want salt, stored_key, server_key and iterations only", ErrInvalidCredential, len(props))
	}
	var c Credential
	var err error
	for _, f := range []struct {
		key string
		dst *[]byte
	}{{keySalt, &c.Salt}, {keyStoredKey, &c.StoredKey}, {keyServerKey, &c.ServerKey}} {
		if *f.dst, err = base64.StdEncoding.DecodeString(props[f.key]); err != nil {
			return Credential{}, fmt.Errorf("%w: %s is not base64", ErrInvalidCredential, f.key)
		}
	}
	if c.Iterations, err = strconv.Atoi(props[keyIterations]); err != nil {
		return Credential{}, fmt.Errorf("%w: iterations %q is not a number", ErrInvalidCredential, props[keyIterations])
	}
	return c, nil
}

// NewCredential derives a credential for password with a fresh random salt
// made as Kafka makes it (the base-36 text of a random 130-bit number).
// iterations must lie in [MinIterations, MaxIterations].
func NewCredential(m Mechanism, password string, iterations int) (Credential, error) {
	if iterations < MinIterations || iterations > MaxIterations {
		return Credential{}, fmt.Errorf("%s: iterations %d outside [%d, %d]", m, iterations, MinIterations, MaxIterations)
	}
	salt, err := randomString()
	if err != nil {
		return Credential{}, fmt.Errorf("%s salt: %w", m, err)
	}
	return DeriveCredential(m, password, []byte(salt), iterations)
}

// DeriveCredential computes the credential for password, salt and
// iterations without checking the iteration bounds, so that credentials
// made elsewhere can be reproduced.
func DeriveCredential(m Mechanism, password string, salt []byte, iterations int) (Credential, error) {
	if !m.Valid() {
		return Credential{}, fmt.Errorf("scram: invalid mechanism %d", m)
	}
	salted, err := m.saltedPassword(password, salt, iterations)
	if err != nil {
		return Credential{}, err
	}
	return FromSaltedPassword(m, salt, salted, iterations), nil
}

// FromSaltedPassword computes the stored credential from a salted
// password (RFC 5802's SaltedPassword), which is what an
// AlterUserScramCredentials upsertion carries instead of the password.
// m must be valid.
func FromSaltedPassword(m Mechanism, salt, salted []byte, iterations int) Credential {
	clientKey := m.hmac(salted, []byte("Client Key"))
	return Credential{
		Salt:       append([]byte(nil), salt...),
		StoredKey:  m.hash(clientKey),
		ServerKey:  m.hmac(salted, []byte("Server Key")),
		Iterations: iterations,
	}
}

// saltedPassword is RFC 5802's Hi(Normalize(password), salt, i); Kafka's
// Normalize is the UTF-8 encoding.
func (m Mechanism) saltedPassword(password string, salt []byte, iterations int) ([]byte, error) {
	if iterations < 1 {
		return nil, fmt.Errorf("%s: iterations %d must be positive", m, iterations)
	}
	k, err := pbkdf2.Key(m.newHash(), password, salt, iterations, m.keyLen())
	if err != nil {
		return nil, fmt.Errorf("%s: pbkdf2: %w", m, err)
	}
	return k, nil
}

func (m Mechanism) hmac(key, msg []byte) []byte {
	h := hmac.New(m.newHash(), key)
	h.Write(msg)
	return h.Sum(nil)
}

func (m Mechanism) hash(b []byte) []byte {
	h := m.newHash()()
	h.Write(b)
	return h.Sum(nil)
}

// randomString is Kafka's ScramFormatter.secureRandomString: a random
// 130-bit number written in base 36. Kafka uses it for salts and server
// nonces; it contains no ',' so it is a valid nonce.
func randomString() (string, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 130))
	if err != nil {
		return "", err
	}
	return n.Text(36), nil
}

// DefaultIterations is what kafka-configs uses when a password spec names
// no iteration count.
const DefaultIterations = MinIterations

// ParsePasswordSpec reads the value kafka-configs takes for a SCRAM config,
// "[iterations=<n>,]password=<password>" (the brackets of --add-config
// already removed), and returns a freshly salted credential. As in
// ConfigCommand, a missing iteration count means 4096, and fewer than 4096
// is an error. The password is everything after "password=",
// commas included.
func ParsePasswordSpec(m Mechanism, spec string) (Credential, error) {
	sp, err := SaltPasswordSpec(m, spec)
	if err != nil {
		return Credential{}, err
	}
	return FromSaltedPassword(m, sp.Salt, sp.Salted, sp.Iterations), nil
}

// SaltedPassword is a password salted and hashed (RFC 5802's
// SaltedPassword, Hi(password, salt, iterations)): what a client sends in
// AlterUserScramCredentials, from which the server derives the stored
// credential.
type SaltedPassword struct {
	Salt       []byte
	Salted     []byte
	Iterations int
}

// SaltPasswordSpec reads a password spec as ParsePasswordSpec does and
// salts the password with a fresh salt made as Kafka makes it.
func SaltPasswordSpec(m Mechanism, spec string) (SaltedPassword, error) {
	iterations := DefaultIterations
	rest := spec
	if after, ok := strings.CutPrefix(rest, keyIterations+"="); ok {
		num, tail, ok := strings.Cut(after, ",")
		if !ok || !allDigits(num) {
			return SaltedPassword{}, fmt.Errorf("invalid credential property %s: want [iterations=<n>,]password=<password>", m)
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			return SaltedPassword{}, fmt.Errorf("invalid credential property %s: iterations %q", m, num)
		}
		iterations, rest = n, tail
	}
	password, ok := strings.CutPrefix(rest, "password=")
	if !ok {
		return SaltedPassword{}, fmt.Errorf("invalid credential property %s: want [iterations=<n>,]password=<password>", m)
	}
	if iterations < MinIterations {
		return SaltedPassword{}, fmt.Errorf("iterations %d is less than the minimum %d required for %s", iterations, MinIterations, m)
	}
	if iterations > MaxIterations {
		return SaltedPassword{}, fmt.Errorf("%s: iterations %d outside [%d, %d]", m, iterations, MinIterations, MaxIterations)
	}
	if !m.Valid() {
		return SaltedPassword{}, fmt.Errorf("scram: invalid mechanism %d", m)
	}
	salt, err := randomString()
	if err != nil {
		return SaltedPassword{}, fmt.Errorf("%s salt: %w", m, err)
	}
	salted, err := m.saltedPassword(password, []byte(salt), iterations)
	if err != nil {
		return SaltedPassword{}, err
	}
	return SaltedPassword{Salt: []byte(salt), Salted: salted, Iterations: iterations}, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FromUserConfig returns the credentials found in a user's entity config
// (the "config" object of /config/users/<user>), keyed by mechanism.
// Other keys (quotas) are ignored; a SCRAM key with an unreadable value is
// an error naming the mechanism.
func FromUserConfig(config map[string]string) (map[Mechanism]Credential, error) {
	out := make(map[Mechanism]Credential)
	for _, m := range Mechanisms() {
		v, ok := config[m.Name()]
		if !ok {
			continue
		}
		c, err := ParseCredential(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		out[m] = c
	}
	return out, nil
}
