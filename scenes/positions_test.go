package scenes

import (
	"strings"
	"testing"
)

// TestErrorPositions: syntax and schema errors name the line and column
// (in characters, from 1) of the offending byte or value, however far into
// the document (the decoder's buffer offsets are not document offsets), and
// encodings other than UTF-8 get a message that says so.
func TestErrorPositions(t *testing.T) {
	long := `"description": "` + strings.Repeat("x", 6000) + `",`
	cases := []struct {
		name, doc, want string
	}{
		{"bad value", `{"dt": x}`, "invalid JSON at line 1, column 8: invalid character 'x'"},
		{"NaN on line 38 after 6 KB", "{" + long + "\n" + strings.Repeat("\n", 36) + `  "dt":        NaN}`, "invalid JSON at line 38, column 16: invalid character 'N'"},
		{"wrong type", "{\"name\": \"a\",\n  \"dt\": \"fast\"}", `dt: expected a number, got a string ("fast") (at line 2, column 9)`},
		{"unknown field", "{\n\n     \"colour\": 1}", `unknown field "colour"`},
		{"unknown field position", "{\n\n     \"colour\": 1}", "(at line 3, column 6)"},
		{"characters, not bytes", `{"name": "héllo", "dt": x}`, "line 1, column 25"},
		{"non-ASCII outside a string", `{"dt": é}`, "invalid JSON at line 1, column 8: byte 0xC3 outside a string"},
		{"integer", "{\"bodies\": [{\"resolution\": 2.5}]}", "(at line 1, column 28)"},
		{"unexpected end", `{"dt": 1`, "unexpected end of input"},
		{"UTF-8 byte order mark", "\xEF\xBB\xBF{}", "byte order mark"},
		{"UTF-16", "\xFF\xFE{\x00}\x00", "UTF-16"},
		{"UTF-16 without a mark", "{\x00}\x00", "UTF-16"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc), "s.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error containing %q, got %v", c.name, c.want, err)
		}
		if err != nil && strings.Contains(err.Error(), "ï") {
			t.Errorf("%s: message shows a mis-decoded byte: %v", c.name, err)
		}
	}
}
