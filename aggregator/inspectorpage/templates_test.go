package inspectorpage

import "testing"

// TestTemplatesParse parses every template of the package (they are
// parsed on first use, not at initialisation) so that a syntax error
// fails here and not on a user's first page view.
func TestTemplatesParse(t *testing.T) {
	if len(templates) != 11 {
		t.Errorf("%d templates, want 11 (the index, the login page and nine panel templates)", len(templates))
	}
	for i, tmpl := range templates {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("template %d: %v", i, r)
				}
			}()
			if tmpl() == nil {
				t.Errorf("template %d: nil", i)
			}
		}()
	}
}
