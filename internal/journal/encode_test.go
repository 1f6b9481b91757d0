package journal

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// sameAsMarshal fails t when marshalRecord(r) is not json.Marshal(r)
// byte for byte.
func sameAsMarshal(t *testing.T, r Record) {
	t.Helper()
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalRecord(r)
	if err != nil {
		t.Fatalf("marshalRecord: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("marshalRecord differs from json.Marshal:\n got %s\nwant %s", got, want)
	}
}

// The records the writer encodes by hand are the bytes encoding/json
// writes, whatever their fields hold: a reader of either cannot tell.
func TestMarshalRecordIsMarshal(t *testing.T) {
	odd := "a\"b\\c<d>e&f\n\r\t\b\f\x00\x1b\x7f é \u2028 \u2029 \xff\xfe end"
	key := &Key{Name: "work:unique:mail:{\"to\":1}", Exists: true, Value: []byte("v\x00"), PTTL: 1234, Mode: "o"}
	items := []Item{
		{Set: "work:dead", Score: "1700000000", Old: []byte(`{"name":"mail","t":1}`), Queue: "work:jobs:mail",
			NewBefore: []byte(`{"name":"mail","t":`), NewAfter: []byte(`}`)},
		{Set: odd, Score: "1.5e+09", Old: []byte(odd), Queue: odd, NewBefore: []byte{}, NewAfter: nil},
		{Queue: "work:jobs:mail", Old: []byte("x"), New: []byte("y"), Count: 3},
		{Set: "work:retry", Score: "-inf", Old: []byte("z"), Unique: key, Key: &Key{Name: odd}},
		{Undo: OpRequeue, Deadline: -1, Count: -7, Unique: &Key{}},
		{},
	}
	cases := map[string]Record{
		"intent":             {Kind: KindIntent, Seq: 1, Intent: &Intent{RedisMs: 1700000000123, Items: items}},
		"intent of one item": {Kind: KindIntent, Seq: 42, Intent: &Intent{Items: items[:1]}},
		"intent, no items":   {Kind: KindIntent, Seq: 2, Intent: &Intent{Items: []Item{}}},
		"intent, nil items":  {Kind: KindIntent, Intent: &Intent{}},
		"intent with maps": {Kind: KindIntent, Seq: 3, Intent: &Intent{Items: []Item{{Key: key,
			Lists: map[string]int64{"b": 1, "a": 2}, Fields: map[string]string{"p2": "1", "p1": odd}}}}},
		"commit":          {Kind: KindCommit, Seq: 1, Commit: &Commit{Codes: "mmg", Now: "1700000100"}},
		"commit, counts":  {Kind: KindCommit, Seq: 9, Commit: &Commit{Counts: []int64{0, -1, 1 << 40}, Statuses: []string{"ok", odd}}},
		"commit, error":   {Kind: KindCommit, Seq: 3, Commit: &Commit{Error: odd, Counts: []int64{}, Statuses: []string{}}},
		"commit, nothing": {Kind: KindCommit, Commit: &Commit{}},
		"header": {Kind: KindHeader, Header: &Header{ID: "20261207-130000-001", Time: time.Unix(1_800_000_000, 5).UTC(),
			Address: "127.0.0.1:6379", Namespace: odd, Op: OpRequeue, Command: "jobs dead requeue", Targets: []string{"a"}}},
		"end":          {Kind: KindEnd, End: &End{Done: 3, Result: "requeued 3", Error: odd}},
		"odd kind":     {Kind: odd, Seq: -1, Commit: &Commit{Codes: odd}},
		"both":         {Kind: KindIntent, Intent: &Intent{}, Commit: &Commit{}},
		"neither":      {Kind: KindIntent},
		"empty record": {},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) { sameAsMarshal(t, r) })
	}
	// Each byte, and a few runes, alone in a string: the fast path must
	// pass on none that Marshal escapes.
	for c := 0; c < 256; c++ {
		s := "a" + string([]byte{byte(c)}) + "z"
		sameAsMarshal(t, Record{Kind: KindCommit, Commit: &Commit{Codes: s}})
		sameAsMarshal(t, Record{Kind: KindIntent, Intent: &Intent{Items: []Item{{Set: s, Old: []byte(s)}}}})
	}
	for _, s := range []string{"é", "\u2028", "\u2029", "\ufffd", "日本", "\U0001F600"} {
		sameAsMarshal(t, Record{Kind: KindCommit, Commit: &Commit{Now: "a" + s}})
	}
}

// FuzzMarshalRecord holds the hand-written encoding to json.Marshal over
// arbitrary strings and bytes in every field it writes.
func FuzzMarshalRecord(f *testing.F) {
	f.Add("work:dead", "1700000000", []byte(`{"name":"mail"}`), "work:jobs:mail", []byte(`{"t":`), int64(3), "m", true)
	f.Add("<&>\u2028", "\xff", []byte{0, 1, 2}, "\"\\", []byte{}, int64(-1), "", false)
	f.Fuzz(func(t *testing.T, s1, s2 string, b1 []byte, s3 string, b2 []byte, n int64, s4 string, exists bool) {
		k := &Key{Name: s4, Exists: exists, Value: b2, PTTL: n, Mode: s1}
		sameAsMarshal(t, Record{Kind: s4, Seq: int(n), Intent: &Intent{RedisMs: n, Items: []Item{
			{Set: s1, Score: s2, Old: b1, Queue: s3, NewBefore: b2, NewAfter: b1, New: b2, Count: n, Unique: k, Key: k, Undo: s4, Deadline: n},
			{Score: s3, Old: b2}}}})
		sameAsMarshal(t, Record{Kind: s1, Seq: int(n), Commit: &Commit{Codes: s2, Now: s3, Counts: []int64{n, -n}, Statuses: []string{s4, s1}, Error: s2}})
	})
}
