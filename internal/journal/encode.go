package journal

// This file owns the payload of the records written once per script call
// (intents and commits): the same bytes as encoding/json's Marshal of the
// record, written without reflection. A bulk requeue writes an intent of
// a hundred or more members per call, and Marshal's reflection and
// base64 were most of its journal's cost. Other records, and any field
// this encoder does not write itself, go through Marshal.

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
)

// marshalRecord is json.Marshal(r), byte for byte.
func marshalRecord(r Record) ([]byte, error) {
	return appendRecord(nil, r)
}

// appendRecord appends json.Marshal(r) to b.
func appendRecord(b []byte, r Record) ([]byte, error) {
	if r.Header != nil || r.End != nil || (r.Intent == nil) == (r.Commit == nil) || !plainIntent(r.Intent) {
		m, err := json.Marshal(r)
		return append(b, m...), err
	}
	b = slices.Grow(b, recordSize(r))
	b = append(b, `{"k":`...)
	b = appendString(b, r.Kind)
	if r.Seq != 0 {
		b = append(b, `,"seq":`...)
		b = strconv.AppendInt(b, int64(r.Seq), 10)
	}
	if r.Intent != nil {
		b = append(b, `,"intent":`...)
		b = appendIntent(b, r.Intent)
	} else {
		b = append(b, `,"commit":`...)
		b = appendCommit(b, r.Commit)
	}
	return append(b, '}'), nil
}

// plainIntent reports whether in (nil included) has none of the fields
// left to Marshal: the maps of a reap's or a lock repair's items.
func plainIntent(in *Intent) bool {
	if in == nil {
		return true
	}
	for i := range in.Items {
		if len(in.Items[i].Lists) > 0 || len(in.Items[i].Fields) > 0 {
			return false
		}
	}
	return true
}

// recordSize is about the payload's length, so that it is allocated once.
func recordSize(r Record) int {
	n := 64
	if r.Intent != nil {
		for i := range r.Intent.Items {
			it := &r.Intent.Items[i]
			n += 160 + len(it.Set) + len(it.Score) + len(it.Queue) + len(it.Undo) +
				base64.StdEncoding.EncodedLen(len(it.Old)+len(it.NewBefore)+len(it.NewAfter)+len(it.New)+len(it.Ahead)+3*5)
			for _, k := range []*Key{it.Unique, it.Key} {
				if k != nil {
					n += 80 + len(k.Name) + len(k.Mode) + base64.StdEncoding.EncodedLen(len(k.Value))
				}
			}
		}
	}
	if r.Commit != nil {
		n += len(r.Commit.Codes) + len(r.Commit.Now) + len(r.Commit.Error) + 21*len(r.Commit.Counts)
		for _, v := range r.Commit.Aheads {
			n += base64.StdEncoding.EncodedLen(len(v)) + 3
		}
		for _, s := range r.Commit.Statuses {
			n += len(s) + 3
		}
	}
	return n
}

func appendIntent(b []byte, in *Intent) []byte {
	b = append(b, '{')
	if in.RedisMs != 0 {
		b = append(b, `"redis_ms":`...)
		b = strconv.AppendInt(b, in.RedisMs, 10)
		b = append(b, ',')
	}
	b = append(b, `"items":`...)
	if in.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range in.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendItem(b, &in.Items[i])
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// fields writes an object's members, a comma before each but the first.
type fields struct {
	b    []byte
	some bool
}

func (f *fields) name(n string) {
	if f.some {
		f.b = append(f.b, ',')
	}
	f.some = true
	f.b = append(f.b, '"')
	f.b = append(f.b, n...)
	f.b = append(f.b, `":`...)
}

func (f *fields) str(n, v string) {
	if v != "" {
		f.name(n)
		f.b = appendString(f.b, v)
	}
}

func (f *fields) bytes(n string, v []byte) {
	if len(v) > 0 {
		f.name(n)
		f.b = append(f.b, '"')
		f.b = base64.StdEncoding.AppendEncode(f.b, v)
		f.b = append(f.b, '"')
	}
}

func (f *fields) int(n string, v int64) {
	if v != 0 {
		f.name(n)
		f.b = strconv.AppendInt(f.b, v, 10)
	}
}

func (f *fields) key(n string, k *Key) {
	if k == nil {
		return
	}
	f.name(n)
	f.b = append(f.b, `{"name":`...)
	f.b = appendString(f.b, k.Name)
	f.b = append(f.b, `,"exists":`...)
	f.b = strconv.AppendBool(f.b, k.Exists)
	g := fields{b: f.b, some: true}
	g.bytes("value", k.Value)
	g.int("pttl", k.PTTL)
	g.str("mode", k.Mode)
	g.b = append(g.b, '}')
	f.b = g.b
}

func appendItem(b []byte, it *Item) []byte {
	f := fields{b: append(b, '{')}
	f.str("set", it.Set)
	f.str("score", it.Score)
	f.bytes("old", it.Old)
	f.str("queue", it.Queue)
	f.bytes("new_before", it.NewBefore)
	f.bytes("new_after", it.NewAfter)
	f.bytes("new", it.New)
	f.int("count", it.Count)
	f.int("position", it.Position)
	f.bytes("ahead", it.Ahead)
	f.key("unique", it.Unique)
	f.key("key", it.Key)
	// lists and fields: plainIntent sent items with them to Marshal.
	f.str("undo", it.Undo)
	f.int("deadline", it.Deadline)
	return append(f.b, '}')
}

func appendCommit(b []byte, c *Commit) []byte {
	f := fields{b: append(b, '{')}
	f.str("codes", c.Codes)
	f.str("now", c.Now)
	if len(c.Counts) > 0 {
		f.name("counts")
		f.b = append(f.b, '[')
		for i, n := range c.Counts {
			if i > 0 {
				f.b = append(f.b, ',')
			}
			f.b = strconv.AppendInt(f.b, n, 10)
		}
		f.b = append(f.b, ']')
	}
	if len(c.Aheads) > 0 {
		f.name("aheads")
		f.b = append(f.b, '[')
		for i, v := range c.Aheads {
			if i > 0 {
				f.b = append(f.b, ',')
			}
			if v == nil {
				f.b = append(f.b, "null"...)
				continue
			}
			f.b = append(f.b, '"')
			f.b = base64.StdEncoding.AppendEncode(f.b, v)
			f.b = append(f.b, '"')
		}
		f.b = append(f.b, ']')
	}
	if len(c.Statuses) > 0 {
		f.name("statuses")
		f.b = append(f.b, '[')
		for i, s := range c.Statuses {
			if i > 0 {
				f.b = append(f.b, ',')
			}
			f.b = appendString(f.b, s)
		}
		f.b = append(f.b, ']')
	}
	f.str("error", c.Error)
	return append(f.b, '}')
}

// appendString appends s as Marshal writes a string: quoted as it is when
// every byte is printable ASCII that needs no escape (Marshal escapes
// '"', '\\' and, for HTML, '<', '>' and '&'), and by Marshal otherwise.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			if err != nil {
				// Marshal of a string does not fail; keep the bytes valid.
				q = []byte(`""`)
			}
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
