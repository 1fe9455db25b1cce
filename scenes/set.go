package scenes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Set applies a `--set path=value` override. path is a dotted key path with
// numeric indices, e.g. "bodies.0.resolution", "gravity.2",
// "obstacles.0.motion.velocity.0" (bracket indices "bodies[0].resolution"
// are accepted too); the index * sets every element of the array
// ("bodies.*.model": each body, validated once). value is parsed as JSON; if it is not valid JSON it is
// taken as a bare string. Keys are checked against the schema, so a field
// that is currently null (e.g. a missing motion) can be set, and its parent
// objects are created as needed. The result is strictly re-decoded and
// validated; on error s is left unchanged.
func (s *Scene) Set(path, value string) error {
	wrap := func(err error) error { return fmt.Errorf("--set %s=%s: %w", path, value, err) }
	keys, err := splitPath(path)
	if err != nil {
		return wrap(err)
	}
	var newVal any
	if d := json.NewDecoder(strings.NewReader(value)); json.Valid([]byte(value)) {
		d.UseNumber()
		if err := d.Decode(&newVal); err != nil {
			return wrap(err)
		}
	} else {
		newVal = value
	}

	raw, err := json.Marshal(s)
	if err != nil {
		return wrap(err)
	}
	var root any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&root); err != nil {
		return wrap(err)
	}
	root, err = setAt(root, sceneType, keys, "", newVal)
	if err != nil {
		return wrap(err)
	}
	data, err := json.Marshal(root)
	if err != nil {
		return wrap(err)
	}
	ns, err := parse(data, s.source, s.geometries)
	if err != nil {
		return wrap(err)
	}
	ns.files = s.files
	*s = *ns
	return nil
}

// splitPath splits "a.0.b" or "a[0].b" into keys.
func splitPath(path string) ([]string, error) {
	p := strings.NewReplacer("[", ".", "]", "").Replace(path)
	if p == "" {
		return nil, fmt.Errorf("empty path")
	}
	keys := strings.Split(p, ".")
	for _, k := range keys {
		if k == "" {
			return nil, fmt.Errorf("malformed path %q: empty key", path)
		}
	}
	return keys, nil
}

// genericZero returns the JSON-generic form of the zero value of t.
func genericZero(t reflect.Type) any {
	raw, _ := json.Marshal(reflect.Zero(t).Interface())
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	_ = d.Decode(&v)
	return v
}

// setAt returns cur (of schema type t, at scene path at) with the value at
// keys replaced by val.
func setAt(cur any, t reflect.Type, keys []string, at string, val any) (any, error) {
	if len(keys) == 0 {
		return val, nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if cur == nil {
		cur = genericZero(t)
	}
	key := keys[0]
	switch t.Kind() {
	case reflect.Struct:
		fields, names := fieldMap(t)
		ft, ok := fields[key]
		if !ok {
			where := at
			if where == "" {
				where = "the scene"
			}
			return nil, &FieldError{Field: joinPath(at, key), Reason: fmt.Sprintf("unknown field %q in %s (valid fields: %s)", key, where, strings.Join(names, ", "))}
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, &FieldError{Field: at, Reason: "expected an object"}
		}
		child, err := setAt(m[key], ft, keys[1:], joinPath(at, key), val)
		if err != nil {
			return nil, err
		}
		m[key] = child
		return m, nil
	case reflect.Slice, reflect.Array:
		arr, _ := cur.([]any)
		if key == "*" {
			// Every element: one set, validated once (so that
			// bodies.*.model can switch every body of a scene whose
			// bodies must share one model).
			for i := range arr {
				child, err := setAt(arr[i], t.Elem(), keys[1:], fmt.Sprintf("%s[%d]", at, i), val)
				if err != nil {
					return nil, err
				}
				arr[i] = child
			}
			return arr, nil
		}
		idx, err := strconv.Atoi(key)
		if err != nil {
			return nil, &FieldError{Field: at, Reason: fmt.Sprintf("is an array; expected a numeric index or *, got %q", key)}
		}
		p := fmt.Sprintf("%s[%d]", at, idx)
		if idx < 0 || idx >= len(arr) {
			return nil, &FieldError{Field: p, Reason: fmt.Sprintf("index %d out of range (length %d)", idx, len(arr))}
		}
		child, err := setAt(arr[idx], t.Elem(), keys[1:], p, val)
		if err != nil {
			return nil, err
		}
		arr[idx] = child
		return arr, nil
	default:
		return nil, &FieldError{Field: at, Reason: fmt.Sprintf("is %s; it has no field %q", typeName(t), key)}
	}
}
