package sessions

import (
	"crypto/rand"
	"encoding/base64"
)

// idBytes is the randomness in a session id: 128 bits, as issue 11 asks,
// so that an id cannot be guessed and a link is the capability it grants.
const idBytes = 16

// newID returns a fresh URL-safe id: idBytes from crypto/rand in
// unpadded base64url, 22 characters.
func newID() string {
	b := make([]byte, idBytes)
	rand.Read(b) // crypto/rand.Read never fails (it panics rather)
	return base64.RawURLEncoding.EncodeToString(b)
}
