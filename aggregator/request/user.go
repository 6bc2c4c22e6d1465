package request

import (
	"context"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

type userKey struct{}

// WithUser returns a copy of ctx that carries u.
func WithUser(ctx context.Context, u *authentication.UserInfo) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user the authentication filter attached to ctx, or
// nil and false when the request was not authenticated.
func UserFrom(ctx context.Context) (*authentication.UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(*authentication.UserInfo)
	return u, ok && u != nil
}
