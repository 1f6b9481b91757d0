package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// appendSnapshotJSON appends what json.Encoder with SetIndent("", "  ")
// writes for v, byte for byte, plus the newline, except that the runes
// encoding/json leaves raw but a terminal must not see are escaped (see
// escapeTerminalRunes). The pools (nearly all of
// the output: 1,000 pools make megabytes) are written directly; encoding
// them with reflection and then re-indenting the whole document took longer
// than reading the snapshot from Redis. The small parts go through
// encoding/json. TestSnapshotJSONMatchesEncodingJSON holds it to that.
func appendSnapshotJSON(b []byte, v snapshotJSON) ([]byte, error) {
	return encodeSnapshotJSON(b, v, nil, nil)
}

// jsonChunk is how much encodeSnapshotJSON holds before it hands the output
// on.
const jsonChunk = 64 << 10

// encodeSnapshotJSON is appendSnapshotJSON handing the output to flush
// whenever it holds jsonChunk bytes (flush nil: never), so that a snapshot
// of thousands of pools is not held whole in memory (fresh memory is most of
// what a short-lived process pays for). Anything that
// can fail other than flush fails before flush is first called.
//
// When workers is not nil, the workers written are those, each converted
// with workerToJSON as it is written, and v.Workers is not read: the same
// output as v.Workers = the converted workers, without a copy of them all.
func encodeSnapshotJSON(b []byte, v snapshotJSON, workers []model.Worker, flush func([]byte) error) ([]byte, error) {
	// The parts that may fail: the small parts, and ages that JSON cannot
	// hold. The findings, one per dead pool (a thousand when every pool of
	// a large namespace stopped beating), cannot fail and are written
	// directly in their place.
	parts := []struct {
		name string
		v    any
		js   []byte
	}{{name: "job_types", v: v.JobTypes}, {name: "sets", v: v.Sets}, {name: "orphans", v: v.Orphans}, {name: "findings"}, {name: "namespace_search", v: v.NamespaceSearch}}
	if v.Variant != nil { // omitempty
		parts = append(parts, struct {
			name string
			v    any
			js   []byte
		}{name: "variant", v: v.Variant})
	}
	for i := range parts {
		if parts[i].name == "findings" {
			continue
		}
		js, err := json.MarshalIndent(parts[i].v, "  ", "  ")
		if err != nil {
			return nil, err
		}
		parts[i].js = escapeTerminalRunes(nil, js)
	}
	for i := range v.Pools {
		if f := v.Pools[i].HeartbeatAgeSeconds; f != nil {
			if _, err := appendJSONFloat(nil, *f); err != nil {
				return nil, err
			}
		}
	}
	for i := range v.Workers {
		if err := checkWorkerJSON(&v.Workers[i]); err != nil {
			return nil, err
		}
	}
	for i := range workers {
		w := workerToJSON(&workers[i])
		if err := checkWorkerJSON(&w); err != nil {
			return nil, err
		}
	}
	var err error
	b = append(b, "{\n  \"namespace\": "...)
	b = appendJSONString(b, v.Namespace)
	b = append(b, ",\n  \"redis_time\": "...)
	b = strconv.AppendInt(b, v.RedisTime, 10)
	b = append(b, ",\n  \"pools\": "...)
	var keys []string // appendJSONCounts' scratch
	b, err = appendJSONArray(b, v.Pools, flush, func(b []byte, p *poolJSON) ([]byte, error) {
		return appendPoolJSON(b, p, &keys)
	})
	if err != nil {
		return nil, err
	}
	for i, part := range parts {
		b = append(b, ",\n  \""...)
		b = append(b, part.name...)
		b = append(b, "\": "...)
		if part.name == "findings" {
			if b, err = appendJSONArray(b, v.Findings, flush, appendFindingJSON); err != nil {
				return nil, err
			}
			continue
		}
		b = append(b, part.js...)
		if i > 0 {
			continue
		}
		// The workers, after the job types: thousands, written directly.
		b = append(b, ",\n  \"workers\": "...)
		var scratch rawScratch
		if workers != nil {
			b, err = appendJSONArray(b, workers, flush, func(b []byte, w *model.Worker) ([]byte, error) {
				wj := workerToJSON(w)
				return appendWorkerJSON(b, &wj, &scratch)
			})
		} else {
			b, err = appendJSONArray(b, v.Workers, flush, func(b []byte, w *workerJSON) ([]byte, error) {
				return appendWorkerJSON(b, w, &scratch)
			})
		}
		if err != nil {
			return nil, err
		}
	}
	return append(b, "\n}\n"...), nil
}

// appendJSONArray writes items as a JSON array, one element per
// appendItem, handing the buffer to flush (when not nil) each time it has
// grown past jsonChunk: null for a nil slice, [] for an empty one.
func appendJSONArray[T any](b []byte, items []T, flush func([]byte) error, appendItem func([]byte, *T) ([]byte, error)) ([]byte, error) {
	switch {
	case items == nil:
		return append(b, "null"...), nil
	case len(items) == 0:
		return append(b, "[]"...), nil
	}
	b = append(b, '[')
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendItem(b, &items[i]); err != nil {
			return nil, err
		}
		if flush != nil && len(b) >= jsonChunk {
			if err := flush(b); err != nil {
				return nil, err
			}
			b = b[:0]
		}
	}
	return append(b, "\n  ]"...), nil
}

// checkWorkerJSON fails on what appendWorkerJSON cannot write: a running
// time JSON cannot hold, args that are not JSON.
func checkWorkerJSON(w *workerJSON) error {
	if f := w.RunningSeconds; f != nil {
		if _, err := appendJSONFloat(nil, *f); err != nil {
			return err
		}
	}
	if w.Args != nil && !json.Valid(w.Args) {
		return fmt.Errorf("worker %s: args are not JSON", w.WorkerID)
	}
	return nil
}

// appendWorkerJSON writes one worker at the depth of the workers array.
func appendWorkerJSON(b []byte, w *workerJSON, scratch *rawScratch) ([]byte, error) {
	const in = "\n      " // the worker's fields
	b = append(b, "\n    {"+in+"\"worker_id\": "...)
	b = appendJSONString(b, w.WorkerID)
	b = append(b, ","+in+"\"pool_id\": "...)
	b = appendJSONString(b, w.PoolID)
	b = append(b, ","+in+"\"busy\": "...)
	b = strconv.AppendBool(b, w.Busy)
	b = append(b, ","+in+"\"job_name\": "...)
	b = appendJSONStringPtr(b, w.JobName)
	b = append(b, ","+in+"\"job_id\": "...)
	b = appendJSONStringPtr(b, w.JobID)
	b = append(b, ","+in+"\"started_at\": "...)
	b = appendJSONIntPtr(b, w.StartedAt)
	b = append(b, ","+in+"\"running_seconds\": "...)
	if w.RunningSeconds == nil {
		b = append(b, "null"...)
	} else {
		var err error
		if b, err = appendJSONFloat(b, *w.RunningSeconds); err != nil {
			return nil, err
		}
	}
	b = append(b, ","+in+"\"args\": "...)
	var err error
	if b, err = scratch.appendRaw(b, w.Args, in[1:]); err != nil {
		return nil, fmt.Errorf("worker %s args: %w", w.WorkerID, err)
	}
	b = append(b, ","+in+"\"checkin\": "...)
	b = appendJSONStringPtr(b, w.Checkin)
	b = append(b, ","+in+"\"checkin_at\": "...)
	b = appendJSONIntPtr(b, w.CheckinAt)
	return append(b, "\n    }"...), nil
}

func appendJSONStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}

func appendJSONIntPtr(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

// rawScratch holds the buffers appendRaw reuses from value to value.
type rawScratch struct{ compact, escaped, indented bytes.Buffer }

// appendRaw writes a raw JSON value as encoding/json writes a
// json.RawMessage inside an indented document: compacted with <, >, &,
// U+2028 and U+2029 escaped, then indented, its nested lines starting with
// prefix; nil is null. The runes a terminal acts on are escaped as in every
// other string (escapeTerminalRunes).
func (s *rawScratch) appendRaw(b []byte, raw json.RawMessage, prefix string) ([]byte, error) {
	if raw == nil {
		return append(b, "null"...), nil
	}
	s.compact.Reset()
	s.escaped.Reset()
	s.indented.Reset()
	if err := json.Compact(&s.compact, raw); err != nil {
		return nil, err
	}
	json.HTMLEscape(&s.escaped, s.compact.Bytes())
	if err := json.Indent(&s.indented, s.escaped.Bytes(), prefix, "  "); err != nil {
		return nil, err
	}
	return escapeTerminalRunes(b, s.indented.Bytes()), nil
}

// appendPoolJSON writes one pool at the depth of the pools array.
// keys is scratch space for appendJSONCounts.
func appendPoolJSON(b []byte, p *poolJSON, keys *[]string) ([]byte, error) {
	const in = "\n      " // the pool's fields
	b = append(b, "\n    {"+in+"\"id\": "...)
	b = appendJSONString(b, p.ID)
	b = append(b, ","+in+"\"status\": "...)
	b = appendJSONString(b, string(p.Status))
	b = append(b, ","+in+"\"heartbeat\": "...)
	if hb := p.Heartbeat; hb == nil {
		b = append(b, "null"...)
	} else {
		const hin = "\n        "
		b = append(b, "{"+hin+"\"heartbeat_at\": "...)
		if hb.HeartbeatAt == nil {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, *hb.HeartbeatAt, 10)
		}
		b = append(b, ","+hin+"\"started_at\": "...)
		b = strconv.AppendInt(b, hb.StartedAt, 10)
		b = append(b, ","+hin+"\"host\": "...)
		b = appendJSONString(b, hb.Host)
		b = append(b, ","+hin+"\"pid\": "...)
		b = strconv.AppendInt(b, hb.PID, 10)
		b = append(b, ","+hin+"\"concurrency\": "...)
		b = strconv.AppendInt(b, hb.Concurrency, 10)
		b = append(b, ","+hin+"\"job_names\": "...)
		b = appendJSONStrings(b, hb.JobNames, hin)
		b = append(b, ","+hin+"\"worker_ids\": "...)
		b = appendJSONStrings(b, hb.WorkerIDs, hin)
		b = append(b, "\n      }"...)
	}
	b = append(b, ","+in+"\"heartbeat_age_seconds\": "...)
	if p.HeartbeatAgeSeconds == nil {
		b = append(b, "null"...)
	} else {
		var err error
		if b, err = appendJSONFloat(b, *p.HeartbeatAgeSeconds); err != nil {
			return nil, err
		}
	}
	b = append(b, ","+in+"\"in_progress\": "...)
	b = appendJSONCounts(b, p.InProgress, in, keys)
	b = append(b, ","+in+"\"lock_info\": "...)
	b = appendJSONCounts(b, p.LockInfo, in, keys)
	return append(b, "\n    }"...), nil
}

// appendFindingJSON writes one finding of the findings array as
// encoding/json writes it (TestSnapshotJSONMatchesEncodingJSON holds the
// two to the same bytes, and fails when model.Finding gains a field).
func appendFindingJSON(b []byte, f *model.Finding) ([]byte, error) {
	const in = "\n      " // the finding's fields
	b = append(b, "\n    {"+in+"\"kind\": "...)
	b = appendJSONString(b, f.Kind)
	b = append(b, ","+in+"\"subject\": "...)
	b = appendJSONString(b, f.Subject)
	b = append(b, ","+in+"\"detail\": "...)
	b = appendJSONString(b, f.Detail)
	return append(b, "\n    }"...), nil
}

// appendJSONStrings writes a list of strings whose opening bracket is on a
// line indented by indent.
func appendJSONStrings(b []byte, s []string, indent string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	if len(s) == 0 {
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, indent...)
		b = append(b, "  "...)
		b = appendJSONString(b, x)
	}
	b = append(b, indent...)
	return append(b, ']')
}

// appendJSONCounts writes a map with its keys sorted, as encoding/json does;
// scratch holds the sorted keys of the last map written, reused as they are
// when this map has the same keys (the pools of a namespace mostly count
// the same job types, and sorting each pool's keys was most of the time
// spent on the pools).
func appendJSONCounts(b []byte, m map[string]int64, indent string, scratch *[]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	if len(m) == 0 {
		return append(b, "{}"...)
	}
	if keys := *scratch; len(keys) == len(m) {
		if out, ok := appendJSONCountsIn(b, m, keys, indent); ok {
			return out
		}
	}
	keys := (*scratch)[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	*scratch = keys
	out, _ := appendJSONCountsIn(b, m, keys, indent)
	return out
}

// appendJSONCountsIn writes m in the order of keys, which holds distinct
// strings, as many as m has keys; false (and b as it was) when one of them
// is not in m.
func appendJSONCountsIn(b []byte, m map[string]int64, keys []string, indent string) ([]byte, bool) {
	start := len(b)
	b = append(b, '{')
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			return b[:start], false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, indent...)
		b = append(b, "  "...)
		b = appendJSONString(b, k)
		b = append(b, ": "...)
		b = strconv.AppendInt(b, v, 10)
	}
	b = append(b, indent...)
	return append(b, '}'), true
}

// appendJSONString writes s as encoding/json does (HTML characters escaped,
// as json.Encoder does by default), plus the escapes of
// escapeTerminalRunes: directly when every byte is printable ASCII that
// needs no escape, through json.Marshal otherwise.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			js, _ := json.Marshal(s) // a string always marshals
			return escapeTerminalRunes(b, js)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// escapeTerminalRunes appends the encoded JSON js to b with every rune that
// textsafe.Clean would escape and encoding/json writes raw (DEL, the C1
// controls, the bidi embeddings, overrides, isolates and marks) written as
// a \uXXXX escape instead: the same JSON value, but one that cannot reach a
// terminal raw when the output is read there. Such runes occur only inside
// strings, and encoding/json has already replaced invalid UTF-8 and escaped
// the C0 controls and U+2028/U+2029, so the escape is all that changes.
func escapeTerminalRunes(b, js []byte) []byte {
	start := 0
	for i := 0; i < len(js); {
		if js[i] < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(js[i:])
		if rs := string(js[i : i+size]); textsafe.Clean(rs) != rs {
			b = append(b, js[start:i]...)
			b = append(b, `\u`...)
			b = append(b, hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
			start = i + size
		}
		i += size
	}
	return append(b, js[start:]...)
}

// hexDigits are the digits of a \uXXXX escape, lower case as encoding/json
// writes them.
const hexDigits = "0123456789abcdef"

// appendJSONFloat writes f as encoding/json does; plain decimals directly,
// the rest (exponents, NaN) through json.Marshal.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if abs := math.Abs(f); f == 0 || (abs >= 1e-6 && abs < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	js, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return append(b, js...), nil
}
