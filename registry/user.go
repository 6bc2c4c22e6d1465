package registry

import "context"

// UserInfo is an authenticated identity, as authentication.k8s.io/v1
// UserInfo carries it on the wire (TokenReview status.user) and as the
// request filters attach it to a request's context.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

type userKey struct{}

// WithUser returns a copy of ctx that carries u.
func WithUser(ctx context.Context, u *UserInfo) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user the authentication filter attached to ctx, or
// nil and false when the request was not authenticated.
func UserFrom(ctx context.Context) (*UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(*UserInfo)
	return u, ok && u != nil
}
