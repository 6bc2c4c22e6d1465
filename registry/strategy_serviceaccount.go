package registry

import (
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ServiceAccountStrategy is the Strategy of core/v1 serviceaccounts
// (kubernetes/pkg/registry/core/serviceaccount/strategy.go):
// ServiceAccounts have no spec or status, nothing is cleared or defaulted.
// Their token subresource (authentication.k8s.io/v1 TokenRequest, create
// only) is listed by discovery here and answered by the aggregator, which
// holds the signing key. The zero value is ready to use.
type ServiceAccountStrategy struct {
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

var (
	_ Strategy              = ServiceAccountStrategy{}
	_ DeletedObjectReturner = ServiceAccountStrategy{}
)

// ReturnDeletedObject is true: upstream's serviceaccount REST storage
// answers a DELETE with the deleted ServiceAccount (ReturnDeletedObject
// in pkg/registry/core/serviceaccount/storage/storage.go).
func (ServiceAccountStrategy) ReturnDeletedObject() bool { return true }

// SubresourceToken is the name of the serviceaccounts/token subresource.
const SubresourceToken = "token"

// Info describes serviceaccounts as /api/v1 discovery does (short name
// sa; serviceaccounts/token of kind authentication.k8s.io/v1 TokenRequest,
// verb create; captured from kube-apiserver 1.33.13).
func (ServiceAccountStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupCore, Version: VersionV1,
		Kind: "ServiceAccount", ListKind: "ServiceAccountList",
		Resource: "serviceaccounts", Singular: "serviceaccount",
		ShortNames: []string{"sa"},
		Namespaced: true,
		Verbs:      crudVerbs,
		Subresources: []SubresourceInfo{{
			Name: SubresourceToken, Kind: "TokenRequest", Verbs: []string{"create"},
			Group: "authentication.k8s.io", Version: "v1",
		}},
	}
}

// New returns an empty *ServiceAccount.
func (ServiceAccountStrategy) New() meta.Object { return &core.ServiceAccount{} }

// PrepareForCreate does nothing: a ServiceAccount is stored as sent.
func (ServiceAccountStrategy) PrepareForCreate(meta.Object) {}

// PrepareForUpdate does nothing (ServiceAccounts keep the generation the
// client sent, as upstream's strategy does not bump it).
func (ServiceAccountStrategy) PrepareForUpdate(obj, old meta.Object) {}

// PrepareForStatusUpdate is never called: ServiceAccounts have no /status.
func (ServiceAccountStrategy) PrepareForStatusUpdate(obj, old meta.Object) {}

// Validate runs ValidateServiceAccount.
func (ServiceAccountStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return core.ValidateServiceAccount(obj.(*core.ServiceAccount))
}

// ValidateUpdate runs ValidateServiceAccountUpdate.
func (ServiceAccountStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateServiceAccountUpdate(obj.(*core.ServiceAccount), old.(*core.ServiceAccount))
}

// Canonicalize does nothing for ServiceAccounts.
func (ServiceAccountStrategy) Canonicalize(meta.Object) {}

// serviceAccountSecretsDescription is the description of the SECRETS
// column: upstream's swagger doc of ServiceAccount.secrets (captured from
// the reference's table).
const serviceAccountSecretsDescription = "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret"

// TableColumns are NAME, SECRETS (an integer), AGE, as upstream's
// printers.go (serviceAccountColumnDefinitions).
func (ServiceAccountStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		nameColumn(),
		stringColumn("Secrets", serviceAccountSecretsDescription),
		ageColumn(),
	}
}

// TableRow returns name, the number of secrets, and age.
func (s ServiceAccountStrategy) TableRow(obj meta.Object) []any {
	sa := obj.(*core.ServiceAccount)
	return []any{sa.Name, int64(len(sa.Secrets)), meta.TableAge(sa.CreationTimestamp, nowOr(s.Now))}
}

// AllowCreateOnUpdate is false for ServiceAccounts (measured: a PUT of a
// missing one is 404 on kube-apiserver 1.33.13).
func (ServiceAccountStrategy) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is true for ServiceAccounts.
func (ServiceAccountStrategy) AllowUnconditionalUpdate() bool { return true }
