package main

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"time"
)

// loadSelection narrows and widens the load legs: -legs runs only the legs
// whose name matches, -compare adds the legs of a second aggsim binary
// (served by its own process, measured in the same rounds), so that an old
// and a new binary are compared interleaved, on the same load.
type loadSelection struct {
	legs    string // regexp of the leg names to run; "" runs all
	compare string // a second aggsim binary, or ""
}

// filter returns the legs sel.legs selects, in their order.
func (sel loadSelection) filter(legs []*leg) ([]*leg, error) {
	if sel.legs == "" {
		return legs, nil
	}
	re, err := regexp.Compile(sel.legs)
	if err != nil {
		return nil, fmt.Errorf("-legs: %w", err)
	}
	var out []*leg
	for _, l := range legs {
		if re.MatchString(l.name) {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-legs %q matches no leg", sel.legs)
	}
	return out, nil
}

// aggsimUnderTest is a running aggsim serve with its admin client.
type aggsimUnderTest struct {
	proc    *child
	url     string // https://127.0.0.1:port
	dataDir string
	admin   *http.Client // one HTTP/2 connection
}

// startAggsim starts bin serve on a fresh dataDir, adds it to s and waits
// for its banner.
func startAggsim(s *servers, bin, dataDir string) (*aggsimUnderTest, error) {
	c, err := startChild(bin, "serve", "--data-dir", dataDir, "--secure-port", "0", "--bind-address", "127.0.0.1")
	if err != nil {
		return nil, err
	}
	s.add(c)
	u, err := c.waitLine(servingRe, 30*time.Second)
	if err != nil {
		return nil, err
	}
	admin, err := adminClient(dataDir, true)
	if err != nil {
		return nil, err
	}
	return &aggsimUnderTest{proc: c, url: u, dataDir: dataDir, admin: admin}, nil
}

// concatFiles writes the concatenation of srcs to dst and returns dst.
func concatFiles(dst string, srcs ...string) (string, error) {
	var all []byte
	for _, p := range srcs {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		all = append(all, b...)
	}
	return dst, os.WriteFile(dst, all, 0o600)
}
