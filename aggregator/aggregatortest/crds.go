package aggregatortest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// crdSource is one manifest (JSON or YAML, possibly several documents)
// and where it came from, for errors.
type crdSource struct {
	name string
	data []byte
}

// WithCRDs installs the CustomResourceDefinitions of the YAML or JSON
// files (each may hold several documents separated by "---") at Start:
// Start returns once every CRD is Established and each of its served
// versions lists the resource in aggregated discovery, so a test can use
// custom resources next to aggregated APIs at once. A file that cannot be
// read, a document that is not a CRD, a CRD the server refuses or one not
// established within the start timeout makes Start fail.
func WithCRDs(files ...string) Option {
	return func(c *config) {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				b = nil
			}
			c.crds = append(c.crds, crdSource{name: f, data: b})
		}
	}
}

// WithCRDObjects installs crds at Start as WithCRDs does.
func WithCRDObjects(crds ...*apiextensions.CustomResourceDefinition) Option {
	return func(c *config) {
		for _, crd := range crds {
			b, _ := json.Marshal(crd)
			c.crds = append(c.crds, crdSource{name: crd.Name, data: b})
		}
	}
}

// yamlSeparator splits a multi-document YAML stream.
var yamlSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// installCRDs creates every CRD of sources and waits until each is
// Established and in aggregated discovery.
func (s *Server) installCRDs(sources []crdSource) error {
	if len(sources) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	type want struct {
		name, group, plural string
		versions            []string
	}
	var wants []want
	for _, src := range sources {
		if src.data == nil {
			return fmt.Errorf("WithCRDs: cannot read %s", src.name)
		}
		for _, doc := range yamlSeparator.Split(string(src.data), -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			body, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				return fmt.Errorf("WithCRDs: %s: %w", src.name, err)
			}
			if string(body) == "null" {
				continue // only comments
			}
			var crd apiextensions.CustomResourceDefinition
			if err := json.Unmarshal(body, &crd); err != nil {
				return fmt.Errorf("WithCRDs: %s: %w", src.name, err)
			}
			if crd.Kind != "CustomResourceDefinition" {
				return fmt.Errorf("WithCRDs: %s: a %q, not a CustomResourceDefinition", src.name, crd.Kind)
			}
			code, out, err := s.crdRequest(ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body)
			if err != nil {
				return err
			}
			if code != http.StatusCreated {
				return fmt.Errorf("WithCRDs: create %s (%s): %d %s", crd.Name, src.name, code, out)
			}
			w := want{name: crd.Name, group: crd.Spec.Group, plural: crd.Spec.Names.Plural}
			for _, v := range crd.Spec.Versions {
				if v.Served {
					w.versions = append(w.versions, v.Name)
				}
			}
			wants = append(wants, w)
		}
	}
	for _, w := range wants {
		err := poll(ctx, func() (bool, error) {
			code, out, err := s.crdRequest(ctx, http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+w.name, nil)
			if err != nil || code != http.StatusOK {
				return false, err
			}
			var crd apiextensions.CustomResourceDefinition
			if err := json.Unmarshal(out, &crd); err != nil {
				return false, err
			}
			if !apiextensions.IsEstablished(&crd) {
				return false, nil
			}
			listed, err := s.aggregatedResources(ctx, w.group)
			if err != nil {
				return false, err
			}
			for _, v := range w.versions {
				if !slices.Contains(listed, v+"/"+w.plural) {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("WithCRDs: %s not established and discovered: %w", w.name, err)
		}
	}
	return nil
}

// crdRequest sends one request as the admin.
func (s *Server) crdRequest(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// aggregatedResources returns "<version>/<resource>" for every resource
// of group in aggregated discovery.
func (s *Server) aggregatedResources(ctx context.Context, group string) ([]string, error) {
	g, err := s.aggregatedGroup(ctx, group)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range g {
		for _, r := range v.Resources {
			out = append(out, v.Version+"/"+r.Resource)
		}
	}
	return out, nil
}
