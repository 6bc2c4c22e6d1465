package rest

import (
	"encoding/json"
	"slices"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

func partialMetadata(obj meta.Object, metaVersion string) meta.PartialObjectMetadata {
	return meta.PartialObjectMetadata{
		TypeMeta:   meta.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/" + metaVersion},
		ObjectMeta: *obj.GetObjectMeta(),
	}
}

// buildTable converts objs into a Table with the strategy's columns.
// include is the includeObject option ("" = Metadata); headers false
// leaves columnDefinitions null.
func buildTable(s registry.Strategy, objs []meta.Object, lm meta.ListMeta, include, metaVersion string, headers bool) (*meta.Table, error) {
	t := &meta.Table{
		TypeMeta: meta.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/" + metaVersion},
		ListMeta: lm,
		Rows:     []meta.TableRow{},
	}
	if headers {
		t.ColumnDefinitions = s.TableColumns()
		if t.ColumnDefinitions == nil {
			t.ColumnDefinitions = []meta.TableColumnDefinition{}
		}
	}
	if o, ok := s.(registry.TableOrderer); ok {
		objs = slices.Clone(objs)
		o.OrderTableRows(objs)
	}
	for _, obj := range objs {
		row := meta.TableRow{Cells: s.TableRow(obj)}
		if row.Cells == nil {
			row.Cells = []any{}
		}
		switch include {
		case meta.IncludeNone:
		case meta.IncludeObject:
			b, err := json.Marshal(obj)
			if err != nil {
				return nil, err
			}
			row.Object = b
		default:
			b, err := json.Marshal(partialMetadata(obj, metaVersion))
			if err != nil {
				return nil, err
			}
			row.Object = b
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
