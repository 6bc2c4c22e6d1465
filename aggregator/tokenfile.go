package aggregator

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// TokenFile is the parsed content of kube-apiserver's --token-file: static
// bearer tokens mapped to users (mirrors
// k8s.io/apiserver/pkg/authentication/token/tokenfile/tokenfile.go). It is
// immutable after parsing and safe for concurrent use.
type TokenFile struct {
	users map[string]*authentication.UserInfo
}

// LoadTokenFile reads and parses the token file at path; see ParseTokenFile.
func LoadTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open token file: %w", err)
	}
	defer f.Close()
	return ParseTokenFile(path, f, nil)
}

// ParseTokenFile parses kube-apiserver's token CSV from r: one record per
// line, `token,user,uid[,"group1,group2"]`, any further columns ignored.
// name is used in error messages. Errors name the line, e.g.
// `token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 3)`.
// As upstream does, a record with an empty token is skipped and a duplicate
// token replaces the earlier one; both are logged as warnings to logger (nil:
// not logged). A 4th column splits on "," into groups (an empty column gives
// one empty group, as upstream).
func ParseTokenFile(name string, r io.Reader, logger *slog.Logger) (*TokenFile, error) {
	reader := csv.NewReader(r)
	reader.FieldsPerRecord = -1
	tokens := map[string]*authentication.UserInfo{}
	recordNum := 0
	for {
		record, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("token file '%s': %w", name, err)
		}
		line, _ := reader.FieldPos(0)
		if len(record) < 3 {
			return nil, fmt.Errorf("token file '%s' must have at least 3 columns (token, user name, user uid), found %d (line %d)", name, len(record), line)
		}
		recordNum++
		if record[0] == "" {
			if logger != nil {
				logger.Warn(fmt.Sprintf("empty token has been found in token file '%s', record number '%d'", name, recordNum))
			}
			continue
		}
		u := &authentication.UserInfo{Username: record[1], UID: record[2]}
		if _, dup := tokens[record[0]]; dup && logger != nil {
			logger.Warn(fmt.Sprintf("duplicate token has been found in token file '%s', record number '%d'", name, recordNum))
		}
		if len(record) >= 4 {
			u.Groups = strings.Split(record[3], ",")
		}
		tokens[record[0]] = u
	}
	return &TokenFile{users: tokens}, nil
}

// Lookup returns a copy of the user token authenticates as (groups as in the
// file, without system:authenticated), or false.
func (t *TokenFile) Lookup(token string) (*authentication.UserInfo, bool) {
	if t == nil {
		return nil, false
	}
	u, ok := t.users[token]
	if !ok {
		return nil, false
	}
	cp := *u
	cp.Groups = slices.Clone(u.Groups)
	return &cp, true
}

// Len returns the number of distinct tokens.
func (t *TokenFile) Len() int {
	if t == nil {
		return 0
	}
	return len(t.users)
}
