package registry

import (
	"strings"
	"sync"
)

// openAPIAlphaDocs are the v3 documents of OpenAPIV3AlphaGroupVersions
// as built from Strategies plus the alpha strategies
// (MutatingAdmissionPolicyStrategies), generated at build time
// (openapi_generated.go).
var openAPIAlphaDocs = sync.OnceValue(func() *openAPIDocSet { return generatedOpenAPIDocs(openAPISetAlpha) })

// OpenAPIV3AlphaGroupVersions are the group-version paths of the alpha
// APIs aggsim can serve (with --runtime-config): the OpenAPI v3 document
// keys OpenAPIV3AlphaGroupVersion answers.
var OpenAPIV3AlphaGroupVersions = []string{"apis/" + GroupAdmissionRegistration + "/" + VersionV1Alpha1}

// OpenAPIV3AlphaGroupVersion returns the OpenAPI v3 document of an alpha
// group-version (see OpenAPIV3AlphaGroupVersions; gvPath without leading
// slash), its hash (as OpenAPIV3Hash) and true, or false when gvPath is
// none of them. The bytes are shared: callers must not modify them.
func OpenAPIV3AlphaGroupVersion(gvPath string) (body []byte, hash string, ok bool) {
	gvPath = strings.TrimPrefix(gvPath, "/")
	for _, gv := range OpenAPIV3AlphaGroupVersions {
		if gv == gvPath {
			d := openAPIAlphaDocs()
			return d.v3[gv], d.v3hash[gv], d.v3[gv] != nil
		}
	}
	return nil, "", false
}
