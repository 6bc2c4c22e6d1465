package registry

import (
	"fmt"
	"time"
)

// API group names of aggsim's own resources.
const (
	// GroupAPIRegistration is the aggregator's own group.
	GroupAPIRegistration = "apiregistration.k8s.io"
	// GroupCore is the legacy core group, served under /api/v1.
	GroupCore = ""
	// VersionV1 is the only version aggsim serves for its own groups.
	VersionV1 = "v1"
)

// Strategies returns the strategies of every resource aggsim stores
// itself: apiservices, then the core subset (namespaces, services,
// endpoints, configmaps). now is the clock for timestamps the strategies
// set (the Local condition) and for AGE cells; nil means time.Now.
func Strategies(now func() time.Time) []Strategy {
	return []Strategy{
		APIServiceStrategy{Now: now},
		NamespaceStrategy{Now: now},
		ServiceStrategy{Now: now},
		EndpointsStrategy{Now: now},
		ConfigMapStrategy{Now: now},
	}
}

// nowOr returns f() or time.Now() when f is nil.
func nowOr(f func() time.Time) time.Time {
	if f == nil {
		return time.Now()
	}
	return f()
}

// Column descriptions shared by every table: upstream takes them from the
// ObjectMeta field docs (metav1.ObjectMeta.SwaggerDoc).
const (
	nameColumnDescription = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	ageColumnDescription  = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

func nameColumn() TableColumnDefinition {
	return TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: nameColumnDescription}
}

func ageColumn() TableColumnDefinition {
	return TableColumnDefinition{Name: "Age", Type: "string", Description: ageColumnDescription}
}

func stringColumn(name, description string) TableColumnDefinition {
	return TableColumnDefinition{Name: name, Type: "string", Description: description}
}

// ageCell is the AGE cell of an object created at t, seen at now:
// "<unknown>" for a zero timestamp, else the short human duration.
func ageCell(t Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return shortHumanDuration(now.Sub(t.Time))
}

// shortHumanDuration renders d as kubectl's AGE column does
// (apimachinery/pkg/util/duration.HumanDuration): seconds below 2m,
// minutes+seconds below 10m, minutes below 3h, hours+minutes below 8h,
// hours below 2d, days+hours below 8d, days below 2y, years+days below 8y.
// Kept private as a fallback for the store's exported HumanDuration.
func shortHumanDuration(d time.Duration) string {
	if s := int(d.Seconds()); s < -1 {
		return "<invalid>"
	} else if s < 0 {
		return "0s"
	} else if s < 120 {
		return fmt.Sprintf("%ds", s)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		if s := int(d/time.Second) % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", minutes, s)
		}
		return fmt.Sprintf("%dm", minutes)
	} else if minutes < 180 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := minutes % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if dy := (hours / 24) % 365; dy != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, dy)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}
