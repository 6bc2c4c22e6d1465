package meta

import (
	"encoding/json"
	"time"
)

// MicroTime is a timestamp in RFC 3339 form with microseconds.
// ---
// MicroTime is a wall-clock instant that encodes as RFC 3339 in UTC with
// six fraction digits ("2006-01-02T15:04:05.000000Z") and as JSON null
// when zero, like metav1.MicroTime (micro_time.go).
// +openapi:type=string
// +openapi:format=date-time
type MicroTime struct {
	time.Time
}

// RFC3339Micro is MicroTime's layout, upstream's metav1.RFC3339Micro.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// MarshalJSON encodes the time in RFC3339Micro UTC, or null when zero.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(RFC3339Micro))
}

// UnmarshalJSON accepts RFC3339Micro strings (any RFC 3339 time) and null;
// the empty string is the zero time.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(RFC3339Micro, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}
