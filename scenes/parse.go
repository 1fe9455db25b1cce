package scenes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loomsim/loom/solver/fabric"
)

var sceneType = reflect.TypeFor[Scene]()

// Parse decodes and validates a scene. Decoding is strict: unknown or
// duplicate keys (matched case-sensitively), wrong JSON types, fixed-size
// arrays of the wrong length, non-integer integers, out-of-range numbers and
// trailing data are errors. source (a file name or built-in name) prefixes
// every error message; errors are *FieldError values (joined with
// errors.Join when validation finds several). The files the scene refers to
// (mesh obstacles' OBJ files) are opened relative to the working directory;
// Load opens them relative to the scene file's directory.
func Parse(data []byte, source string) (*Scene, error) {
	return parse(data, source, nil)
}

// parse is Parse with the fabric geometries already built for another
// version of the scene (Scene.geometries), which validation reuses where a
// fabric's geometry is the same.
func parse(data []byte, source string, geometries map[string]*fabric.Fabric) (*Scene, error) {
	if err := checkSchema(data, source); err != nil {
		return nil, err
	}
	s := new(Scene)
	if err := json.Unmarshal(data, s); err != nil {
		// checkSchema accepts only documents that decode; keep a safe fallback.
		return nil, &FieldError{Source: source, Reason: err.Error()}
	}
	s.source = source
	s.geometries = geometries
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s.normalize()
	return s, nil
}

// Load reads and parses a scene file.
func Load(path string) (*Scene, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scene %s: %w", path, err)
	}
	s, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	s.files = dirAssets{dir: filepath.Dir(path)}
	return s, nil
}

// checkSchema walks the JSON token stream against the Scene type.
func checkSchema(data []byte, source string) error {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return &FieldError{Source: source, Reason: "the file starts with a UTF-8 byte order mark (EF BB BF); save it as UTF-8 without one"}
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || len(data) >= 2 && (data[0] == 0 || data[1] == 0):
		return &FieldError{Source: source, Reason: "the file is UTF-16 (or UTF-32) text; loom reads JSON as UTF-8: save it as UTF-8"}
	}
	c := &checker{data: data, source: source, dec: json.NewDecoder(bytes.NewReader(data))}
	c.dec.UseNumber()
	if len(bytes.TrimSpace(data)) == 0 {
		return &FieldError{Source: source, Reason: "empty document; expected a JSON object"}
	}
	tok, err := c.next()
	if err != nil {
		return err
	}
	if err := c.value(tok, sceneType, ""); err != nil {
		return err
	}
	if _, err := c.dec.Token(); err != io.EOF {
		return &FieldError{Source: source, Reason: fmt.Sprintf("%s: trailing data after the JSON object", c.where(c.dec.InputOffset()))}
	}
	return nil
}

type checker struct {
	data   []byte
	source string
	dec    *json.Decoder
	// tokStart is the byte offset of the first byte of the token read last.
	tokStart int64
}

// where formats a byte offset as "line L, column C" (columns count
// characters, from 1).
func (c *checker) where(off int64) string {
	off = min(max(off, 0), int64(len(c.data)))
	before := c.data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// syntax reports a syntax error at the offending byte. json.Decoder.Token's
// SyntaxError.Offset counts from the decoder's buffer, not the document (a
// NaN on line 38 came out as line 19), so the position is taken from
// json.Unmarshal's scan of the whole document instead, whose Offset is the
// number of bytes read up to and including the bad one.
func (c *checker) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		var v any
		if uerr := json.Unmarshal(c.data, &v); errors.As(uerr, &se) {
			off := se.Offset - 1
			if off >= 0 && off < int64(len(c.data)) && c.data[off] >= 0x80 {
				return &FieldError{Source: c.source, Reason: fmt.Sprintf("invalid JSON at %s: byte 0x%02X outside a string (JSON is UTF-8 text; outside strings only ASCII)", c.where(off), c.data[off])}
			}
			return &FieldError{Source: c.source, Reason: fmt.Sprintf("invalid JSON at %s: %v", c.where(off), se)}
		}
		return &FieldError{Source: c.source, Reason: fmt.Sprintf("invalid JSON: %v", se)}
	case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
		return &FieldError{Source: c.source, Reason: "invalid JSON: unexpected end of input"}
	}
	return &FieldError{Source: c.source, Reason: "invalid JSON: " + err.Error()}
}

// next reads a token and records where it starts: after the decoder's
// position, past white space and the ',' or ':' that Token consumes with it.
func (c *checker) next() (json.Token, error) {
	pos := c.dec.InputOffset()
	tok, err := c.dec.Token()
	if err != nil {
		return nil, c.syntax(err)
	}
	for pos < int64(len(c.data)) && strings.IndexByte(" \t\r\n,:", c.data[pos]) >= 0 {
		pos++
	}
	c.tokStart = pos
	return tok, nil
}

// fail reports a schema error at path, placed at the token read last.
func (c *checker) fail(path, format string, args ...any) error {
	return &FieldError{Source: c.source, Field: path, Reason: fmt.Sprintf(format, args...) + " (at " + c.where(c.tokStart) + ")"}
}

func describe(tok json.Token) string {
	switch t := tok.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number (" + t.String() + ")"
	case string:
		return fmt.Sprintf("a string (%q)", t)
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return "an array"
	}
	return fmt.Sprintf("%v", tok)
}

// skip consumes the rest of a value whose first token was tok.
func (c *checker) skip(tok json.Token) error {
	d, ok := tok.(json.Delim)
	if !ok || (d != '{' && d != '[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := c.next()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// fieldMap returns the JSON keys of a struct type and their field types.
func fieldMap(t reflect.Type) (map[string]reflect.Type, []string) {
	m := map[string]reflect.Type{}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := jsonName(f)
		if name == "-" {
			continue
		}
		m[name] = f.Type
		keys = append(keys, name)
	}
	return m, keys
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return typeName(t.Elem()) + " or null"
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	case reflect.Array:
		return fmt.Sprintf("an array of %d", t.Len())
	case reflect.Float64:
		return "a number"
	case reflect.Int:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	}
	return t.String()
}

func (c *checker) value(tok json.Token, t reflect.Type, path string) error {
	if t.Kind() == reflect.Pointer {
		if tok == nil {
			return nil
		}
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return c.fail(path, "expected an object, got %s", describe(tok))
		}
		fields, keys := fieldMap(t)
		seen := map[string]bool{}
		for c.dec.More() {
			kt, err := c.next()
			if err != nil {
				return err
			}
			key := kt.(string)
			p := joinPath(path, key)
			ft, ok := fields[key]
			if !ok {
				hint := ""
				for _, k := range keys {
					if strings.EqualFold(k, key) {
						hint = fmt.Sprintf("; did you mean %q?", k)
					}
				}
				return c.fail(p, "unknown field %q (valid fields: %s)%s", key, strings.Join(keys, ", "), hint)
			}
			if seen[key] {
				return c.fail(p, "duplicate field %q", key)
			}
			seen[key] = true
			vt, err := c.next()
			if err != nil {
				return err
			}
			if err := c.value(vt, ft, p); err != nil {
				return err
			}
		}
		_, err := c.next() // '}'
		return err
	case reflect.Slice, reflect.Array:
		if tok == nil && t.Kind() == reflect.Slice {
			return nil
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return c.fail(path, "expected %s, got %s", typeName(t), describe(tok))
		}
		n := 0
		for c.dec.More() {
			et, err := c.next()
			if err != nil {
				return err
			}
			if t.Kind() == reflect.Array && n >= t.Len() {
				return c.fail(path, "expected an array of %d elements, got more", t.Len())
			}
			if err := c.value(et, t.Elem(), fmt.Sprintf("%s[%d]", path, n)); err != nil {
				return err
			}
			n++
		}
		if _, err := c.next(); err != nil { // ']'
			return err
		}
		if t.Kind() == reflect.Array && n != t.Len() {
			return c.fail(path, "expected an array of %d elements, got %d", t.Len(), n)
		}
		return nil
	case reflect.Float64:
		num, ok := tok.(json.Number)
		if !ok {
			if err := c.skip(tok); err != nil {
				return err
			}
			return c.fail(path, "expected a number, got %s", describe(tok))
		}
		f, err := strconv.ParseFloat(num.String(), 64)
		if err != nil || math.IsInf(f, 0) {
			return c.fail(path, "number %s out of range", num)
		}
		return nil
	case reflect.Int:
		num, ok := tok.(json.Number)
		if !ok {
			if err := c.skip(tok); err != nil {
				return err
			}
			return c.fail(path, "expected an integer, got %s", describe(tok))
		}
		if _, err := strconv.ParseInt(num.String(), 10, 32); err != nil {
			return c.fail(path, "expected an integer (without fraction or exponent, |n| < 2^31), got %s", num)
		}
		return nil
	case reflect.String:
		if _, ok := tok.(string); !ok {
			if err := c.skip(tok); err != nil {
				return err
			}
			return c.fail(path, "expected a string, got %s", describe(tok))
		}
		return nil
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			if err := c.skip(tok); err != nil {
				return err
			}
			return c.fail(path, "expected a boolean (true or false), got %s", describe(tok))
		}
		return nil
	}
	return c.fail(path, "unsupported schema type %s", t)
}
