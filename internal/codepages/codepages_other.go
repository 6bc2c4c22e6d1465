//go:build !linux

package codepages

import "errors"

func release() (Stats, error) { return Stats{}, errors.ErrUnsupported }
