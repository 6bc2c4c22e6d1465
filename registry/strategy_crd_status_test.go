package registry

import (
	"strings"
	"testing"
)

// With the status subresource on, a root schema with a field upstream
// does not allow there is refused first, with kube-apiserver 1.33.13's
// text (kubectl create --dry-run=server of a CRD whose root schema has
// minProperties, against the reference: `spec.validation.openAPIV3Schema:
// Invalid value: apiextensions.JSONSchemaProps{...(Go struct)...}: only
// [Description Type ... XValidations] fields are allowed at the root of
// the schema if the status subresource is enabled`; aggsim prints the
// struct as {...}); without it the same schema is accepted.
func TestCheckCRDSchemaStatusSubresourceRoot(t *testing.T) {
	raw := []byte(`{"type":"object","minProperties":1,"properties":{"spec":{"type":"object"}}}`)
	errs := checkCRDSchema(raw, "spec.validation.openAPIV3Schema", true)
	const want = `spec.validation.openAPIV3Schema: Invalid value: apiextensions.JSONSchemaProps{...}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`
	if len(errs) != 1 || errs[0].Error() != want {
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		t.Errorf("with status:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if errs := checkCRDSchema(raw, "spec.validation.openAPIV3Schema", false); len(errs) != 0 {
		t.Errorf("without status: %v", errs)
	}
}
