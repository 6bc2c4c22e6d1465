package meta

import (
	"encoding/json"
	"fmt"
	"time"
)

// Table is the meta.k8s.io Table a server returns for `kubectl get`
// (Accept: application/json;as=Table;v=v1;g=meta.k8s.io). It mirrors
// metav1.Table (k8s.io/apimachinery/pkg/apis/meta/v1/types.go).
type Table struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	// ColumnDefinitions is null on watch events after the first, as
	// upstream sends them.
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	Rows              []TableRow              `json:"rows"`
}

// TableRow is one row of a Table: the cells and, per includeObject, the
// object (PartialObjectMetadata by default, the full object, or null).
type TableRow struct {
	Cells  []any           `json:"cells"`
	Object json.RawMessage `json:"object"`
}

// PartialObjectMetadata is an object reduced to its metadata
// (metav1.PartialObjectMetadata), used in table rows and for
// as=PartialObjectMetadata requests.
type PartialObjectMetadata struct {
	TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	ObjectMeta `json:"metadata"`
}

// PartialObjectMetadataList is a list of PartialObjectMetadata.
type PartialObjectMetadataList struct {
	TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	ListMeta `json:"metadata"`
	Items    []PartialObjectMetadata `json:"items"`
}

// includeObject values of the Table request option (metav1.IncludeObjectPolicy).
const (
	IncludeNone     = "None"
	IncludeMetadata = "Metadata"
	IncludeObject   = "Object"
)

// HumanDuration prints a duration the way kubectl's AGE column does
// (k8s.io/apimachinery/pkg/util/duration.HumanDuration): "0s".."119s",
// "2m5s".."9m59s", "10m".."179m", "3h".."7h59m", "8h".."47h", "2d".."7d23h",
// "8d".."729d", "2y".."7y364d", then "8y"...; below -1s it is "<invalid>".
func HumanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		s := int(d/time.Second) % 60
		if s == 0 {
			return fmt.Sprintf("%dm", minutes)
		}
		return fmt.Sprintf("%dm%ds", minutes, s)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	if hours < 8 {
		m := int(d/time.Minute) % 60
		if m == 0 {
			return fmt.Sprintf("%dh", hours)
		}
		return fmt.Sprintf("%dh%dm", hours, m)
	} else if hours < 48 {
		return fmt.Sprintf("%dh", hours)
	} else if hours < 24*8 {
		h := hours % 24
		if h == 0 {
			return fmt.Sprintf("%dd", hours/24)
		}
		return fmt.Sprintf("%dd%dh", hours/24, h)
	} else if hours < 24*365*2 {
		return fmt.Sprintf("%dd", hours/24)
	} else if hours < 24*365*8 {
		dy := (hours / 24) % 365
		if dy == 0 {
			return fmt.Sprintf("%dy", hours/24/365)
		}
		return fmt.Sprintf("%dy%dd", hours/24/365, dy)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}

// TableAge is the AGE cell of an object created at t, seen at now:
// HumanDuration(now - t), or "<unknown>" for a zero timestamp.
func TableAge(t Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return HumanDuration(now.Sub(t.Time))
}
