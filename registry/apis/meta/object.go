package meta

// Object is what the generic store persists: any wire type that embeds
// TypeMeta and ObjectMeta (pointer receivers).
type Object interface {
	GetTypeMeta() *TypeMeta
	GetObjectMeta() *ObjectMeta
}

// TableColumnDefinition mirrors metav1.TableColumnDefinition.
type TableColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}
