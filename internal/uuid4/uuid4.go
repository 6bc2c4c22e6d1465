package uuid4

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
)

// Format returns b as a version 4 UUID: the version and variant bits set
// (RFC 4122 section 4.4), in the 36-character 8-4-4-4-12 lower-case hex
// form upstream's github.com/google/uuid prints.
func Format(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}

// New returns a random version 4 UUID whose bytes come from math/rand/v2's
// ChaCha8 generator (seeded by the runtime, per thread), not crypto/rand:
// for ids that must be unique, not secret, such as a request's Audit-Id.
// crypto/rand costs a getrandom system call per call, which is slow in
// sandboxes such as gVisor.
func New() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:16], rand.Uint64())
	return Format(b)
}
