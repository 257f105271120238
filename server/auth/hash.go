package auth

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"hash"
)

// The hashing algorithms RabbitMQ's definitions name in hashing_algorithm.
// A stored hash is base64(salt ‖ H(salt ‖ password)) with a 4-byte salt
// (rabbit_password:hash/2); SHA-256 has been the default since 3.6.
const (
	SHA256 = "rabbit_password_hashing_sha256"
	SHA512 = "rabbit_password_hashing_sha512"
	MD5    = "rabbit_password_hashing_md5"
)

const saltLen = 4

func hasher(algorithm string) (func() hash.Hash, bool) {
	switch algorithm {
	case SHA256, "":
		return sha256.New, true
	case SHA512:
		return sha512.New, true
	case MD5:
		return md5.New, true
	}
	return nil, false
}

// HashPassword returns password hashed as RabbitMQ's
// rabbit_password_hashing_sha256 does, with a fresh random salt: the value
// a definitions file carries in password_hash.
func HashPassword(password string) string {
	var salt [saltLen]byte
	if _, err := rand.Read(salt[:]); err != nil {
		panic("auth: no randomness for a salt: " + err.Error())
	}
	return base64.StdEncoding.EncodeToString(saltedHash(sha256.New, salt[:], password))
}

func saltedHash(h func() hash.Hash, salt []byte, password string) []byte {
	d := h()
	d.Write(salt)
	d.Write([]byte(password))
	return d.Sum(append([]byte(nil), salt...))
}

// decodeHash checks that an imported hash has the shape its algorithm
// gives, and returns its bytes.
func decodeHash(encoded, algorithm string) ([]byte, error) {
	h, ok := hasher(algorithm)
	if !ok {
		return nil, fmt.Errorf("unknown hashing algorithm %q", algorithm)
	}
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, fmt.Errorf("password_hash is not base64: %v", err)
	}
	if len(raw) != saltLen+h().Size() {
		return nil, fmt.Errorf("password_hash has %d bytes, want %d for %s", len(raw), saltLen+h().Size(), algorithm)
	}
	return raw, nil
}

// checkPassword reports whether password matches a decoded hash, in
// constant time.
func checkPassword(raw []byte, algorithm, password string) bool {
	h, ok := hasher(algorithm)
	if !ok || len(raw) < saltLen {
		return false
	}
	want := saltedHash(h, raw[:saltLen], password)
	return subtle.ConstantTimeCompare(want, raw) == 1
}

func encodeHash(raw []byte) string { return base64.StdEncoding.EncodeToString(raw) }
