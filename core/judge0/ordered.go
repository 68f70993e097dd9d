package judge0

import (
	"bytes"
	"encoding/json"
)

// KV is one key of an Ordered object.
type KV struct {
	Key   string
	Value any
}

// Ordered is a JSON object whose keys keep their order, as Judge0's serializers write
// them (clients and humans diffing answers see Judge0's order).
type Ordered []KV

// MarshalJSON writes the keys in order.
func (o Ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalValue(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalValue writes v without escaping <, > and & (Judge0 does not).
func marshalValue(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Get is the value of key, if present.
func (o Ordered) Get(key string) (any, bool) {
	for _, kv := range o {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}
