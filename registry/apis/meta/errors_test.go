package meta

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestStatusErrorIs pins the error vocabulary: a StatusError matches the
// sentinel of its reason under errors.Is, also when wrapped, and no other.
func TestStatusErrorIs(t *testing.T) {
	gr := GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}
	cases := []struct {
		err  error
		want error
	}{
		{NewNotFound(gr, "x"), ErrNotFound},
		{NewAlreadyExists(gr, "x"), ErrAlreadyExists},
		{NewConflict(gr, "x", "stale"), ErrConflict},
		{NewInvalid(gr.Group, "APIService", "x", FieldErrors{Required("spec.group", "")}), ErrInvalid},
		{NewStatusError(410, StatusReasonExpired, "too old resource version: 1 (2)"), ErrExpired},
		{NewStatusError(403, StatusReasonForbidden, "no"), ErrForbidden},
	}
	all := []error{ErrNotFound, ErrAlreadyExists, ErrConflict, ErrInvalid, ErrExpired, ErrForbidden}
	for _, c := range cases {
		wrapped := fmt.Errorf("outer: %w", c.err)
		for _, s := range all {
			want := s == c.want
			if got := errors.Is(c.err, s); got != want {
				t.Errorf("errors.Is(%q, %v) = %v, want %v", c.err, s, got, want)
			}
			if got := errors.Is(wrapped, s); got != want {
				t.Errorf("errors.Is(wrapped %q, %v) = %v, want %v", c.err, s, got, want)
			}
		}
	}
	if errors.Is(errors.New("NotFound"), ErrNotFound) {
		t.Error("a plain error with the reason's text matched ErrNotFound")
	}
	if got := ErrNotFound.Error(); got != "NotFound" {
		t.Errorf("ErrNotFound.Error() = %q", got)
	}
}

// TestGoStringSlice pins the %#v form of typed string slices, nil
// included, against fmt's own.
func TestGoStringSlice(t *testing.T) {
	type OperationType string
	for _, l := range [][]string{nil, {}, {"*", "CREATE"}, {`a"b`}} {
		typed := make([]OperationType, len(l))
		for i, s := range l {
			typed[i] = OperationType(s)
		}
		if l == nil {
			typed = nil
		}
		want := strings.Replace(fmt.Sprintf("%#v", typed), "[]meta.OperationType", "[]x.OperationType", 1)
		if got := GoStringSlice("x.OperationType", l).String(); got != want {
			t.Errorf("%q: got %s, want %s", l, got, want)
		}
	}
}
