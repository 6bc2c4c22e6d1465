package registry

import (
	"reflect"
	"time"

	"github.com/aggsim/aggsim/internal/apidoc"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// API group names of aggsim's own resources.
const (
	// GroupCore is the legacy core group, served under /api/v1.
	GroupCore = ""
	// VersionV1 is the only version aggsim serves for its own groups.
	VersionV1 = "v1"
)

// Strategies returns the strategies of every resource aggsim stores
// itself: apiservices, then the core subset (namespaces, services,
// endpoints, configmaps, serviceaccounts, events, resourcequotas, limitranges), then the admissionregistration.k8s.io/v1 and
// flowcontrol.apiserver.k8s.io/v1 resources a k8s.io/apiserver backend
// lists and watches (AdmissionStrategies, FlowControlStrategies), and
// rbac.authorization.k8s.io/v1 (RBACStrategies), and
// apiextensions.k8s.io/v1 customresourcedefinitions (CRDStrategy). now is the clock for timestamps the strategies
// set (the Local condition) and for AGE cells; nil means time.Now.
func Strategies(now func() time.Time) []Strategy {
	out := []Strategy{
		APIServiceStrategy{Now: now},
		NamespaceStrategy{Now: now},
		ServiceStrategy{Now: now},
		EndpointsStrategy{Now: now},
		ConfigMapStrategy{Now: now},
		ServiceAccountStrategy{Now: now},
		EventStrategy{Now: now},
		ResourceQuotaStrategy{Now: now},
		LimitRangeStrategy{},
	}
	out = append(out, AdmissionStrategies(now)...)
	out = append(out, FlowControlStrategies(now)...)
	out = append(out, CoordinationStrategies(now)...)
	out = append(out, RBACStrategies(now)...)
	return append(out, CRDStrategy{Now: now})
}

// nowOr returns f() or time.Now() when f is nil.
func nowOr(f func() time.Time) time.Time {
	if f == nil {
		return time.Now()
	}
	return f()
}

// Column descriptions shared by every table: upstream takes them from the
// ObjectMeta field docs (metav1.ObjectMeta.SwaggerDoc). The name column's
// is the description of meta.ObjectMeta.Name; the age column's is
// upstream's full creationTimestamp text, which aggsim's OpenAPI documents
// shorten.
var nameColumnDescription = apidoc.FieldDoc(reflect.TypeFor[meta.ObjectMeta](), "Name")

const (
	ageColumnDescription = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// crudVerbs are the discovery verbs of an ordinary stored resource, in
// upstream's order.
var crudVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// statusVerbs are the discovery verbs of a /status subresource.
var statusVerbs = []string{"get", "patch", "update"}

func nameColumn() meta.TableColumnDefinition {
	return meta.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: nameColumnDescription}
}

func ageColumn() meta.TableColumnDefinition {
	return meta.TableColumnDefinition{Name: "Age", Type: "string", Description: ageColumnDescription}
}

// createdAtColumn is the CREATED AT column (a date) of the tables that
// show a creation time instead of an age (roles, limit ranges); its cells
// are createdAtCell.
func createdAtColumn() meta.TableColumnDefinition {
	return meta.TableColumnDefinition{Name: "Created At", Type: "date", Description: ageColumnDescription}
}

// createdAtCell is a CREATED AT cell: the creation time in RFC 3339, UTC.
func createdAtCell(m *meta.ObjectMeta) string {
	return m.CreationTimestamp.UTC().Format(time.RFC3339)
}

func stringColumn(name, description string) meta.TableColumnDefinition {
	return meta.TableColumnDefinition{Name: name, Type: "string", Description: description}
}
