package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// encodingJSON is what json.Encoder with SetIndent("", "  ") writes for v,
// with the runes encoding/json leaves raw but a terminal must not see (DEL,
// C1 controls, bidi embeddings, overrides, isolates and marks) escaped as
// \uXXXX: the reference. For data without those runes it is encoding/json's
// output byte for byte.
func encodingJSON(t *testing.T, v snapshotJSON) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	for _, r := range terminalRunes() {
		out = bytes.ReplaceAll(out, []byte(string(r)), []byte(fmt.Sprintf(`\u%04x`, r)))
	}
	return out
}

// terminalRunes lists the runes that encoding/json writes raw and the JSON
// writer escapes.
func terminalRunes() []rune {
	rs := []rune{0x7f, 0x200e, 0x200f, 0x061c}
	for r := rune(0x80); r <= 0x9f; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x202a); r <= 0x202e; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x2066); r <= 0x2069; r++ {
		rs = append(rs, r)
	}
	return rs
}

func checkSameJSON(t *testing.T, name string, v snapshotJSON) {
	t.Helper()
	want := encodingJSON(t, v)
	got, err := appendSnapshotJSON(nil, v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		lo := max(i-80, 0)
		t.Fatalf("%s: output differs from encoding/json at byte %d:\ngot  %q\nwant %q", name, i, got[lo:min(i+80, len(got))], want[lo:min(i+80, len(want))])
	}
}

func f64(f float64) *float64 { return &f }
func i64(i int64) *int64     { return &i }

func TestSnapshotJSONMatchesEncodingJSON(t *testing.T) {
	now := time.Unix(1795964200, 0)
	age := 3*time.Second + 456*time.Millisecond
	snap := &model.Snapshot{
		Namespace: "work<&>\u2028",
		RedisTime: now,
		Pools: []model.Pool{
			{ID: "6f1a2b3c4d5e6f7a8b9c0d1e", Status: model.StatusAlive, HeartbeatAge: &age,
				Heartbeat: &model.Heartbeat{HeartbeatAt: now.Unix() - 3, StartedAt: now.Unix() - 3600, Host: "host\x1b[31m\"q\"\\",
					PID: 42, Concurrency: 10, JobNames: []string{"a", "b:c", "é"}, WorkerIDs: []string{"w1"}},
				InProgress: map[string]int64{"z": 1, "a": 2, "ä": 3}, LockInfo: map[string]int64{"a": 2}},
			{ID: "dead\xff\xfe", Status: model.StatusDead},
			{ID: "malformed", Status: model.StatusLate, Heartbeat: &model.Heartbeat{HeartbeatAtMalformed: true}},
		},
		JobTypes: []model.JobType{{Name: "a", Queued: 3, Lock: 2}},
		Sets:     model.SetCounts{Retry: 3, Scheduled: 1, Dead: 11024},
		Orphans:  []model.InProgressList{{Key: "work:jobs:a:x:inprogress", JobName: "a", PoolID: "x", Length: 7}},
		Findings: []model.Finding{{Kind: model.FindingDeadPool, Subject: "dead", Detail: "no heartbeat <none>"}},
	}
	checkSameJSON(t, "snapshot", snapshotToJSON(snap))
	checkSameJSON(t, "empty", snapshotToJSON(&model.Snapshot{Namespace: "work", RedisTime: now}))

	// Values snapshotToJSON never makes, so that the writer is right for
	// any value of the type: nil slices and maps, odd floats.
	checkSameJSON(t, "nils", snapshotJSON{Pools: []poolJSON{{Heartbeat: &heartbeatJSON{HeartbeatAt: i64(-5)}}}})
	for _, f := range []float64{0, -0.5, 1e-7, 1e-6, 123456.789, 1e20, 1e21, -2.5e22, 0.001} {
		checkSameJSON(t, "float", snapshotJSON{Pools: []poolJSON{{HeartbeatAgeSeconds: f64(f), InProgress: map[string]int64{}}}})
	}

	// Maps of the same size with other keys, one after the other: the
	// sorted keys of one map are reused only for a map with the same keys.
	var pools []poolJSON
	for _, m := range []map[string]int64{{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "c": 6}, {"c": 7, "b": 8}, {"b": 9}, {"c": 1, "a": 2}} {
		pools = append(pools, poolJSON{InProgress: m, LockInfo: map[string]int64{"z": 1, "a": 2}})
	}
	checkSameJSON(t, "counts", snapshotJSON{Pools: pools})

	// Random strings over the characters that need escaping.
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "Z", "0", " ", "\"", "\\", "/", "<", ">", "&", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "\u2028", "\u2029", "\xff", "😀",
		"\u0085", "\u009b", "\u202e", "\u2066", "\u2069", "\u200f", "\u061c", "\u200b", "\u00a0"}
	str := func() string {
		var b []byte
		for n := r.Intn(8); n > 0; n-- {
			b = append(b, alphabet[r.Intn(len(alphabet))]...)
		}
		return string(b)
	}
	for i := 0; i < 300; i++ {
		p := poolJSON{ID: str(), Status: model.Status(str()), InProgress: map[string]int64{str(): r.Int63n(100) - 50, str(): 1},
			Heartbeat: &heartbeatJSON{Host: str(), JobNames: []string{str(), str()}, WorkerIDs: []string{}}}
		checkSameJSON(t, "random", snapshotJSON{Namespace: str(), Pools: []poolJSON{p, p},
			Findings: []model.Finding{{Kind: str(), Subject: str(), Detail: str()}, {}}})
	}

	// The findings are written field by field: a field added to
	// model.Finding must be added to appendFindingJSON too.
	checkSameJSON(t, "no findings", snapshotJSON{Findings: []model.Finding{}})
	checkSameJSON(t, "nil findings", snapshotJSON{})
	if n := reflect.TypeOf(model.Finding{}).NumField(); n != 3 {
		t.Errorf("model.Finding has %d fields; appendFindingJSON writes 3", n)
	}
}

// TestSnapshotJSONEscapesTerminalRunes: DEL, C1 controls and bidi text in
// any string of the snapshot (pool fields, map keys, job types, orphans,
// findings) come out as \uXXXX escapes, never raw, and decode to the same
// value.
func TestSnapshotJSONEscapesTerminalRunes(t *testing.T) {
	var bad strings.Builder
	for _, r := range terminalRunes() {
		bad.WriteRune(r)
	}
	bad.WriteString("\u2028\u2029\x1b[31m")
	x := "x" + bad.String()
	now := time.Unix(1795964200, 0)
	age := time.Second
	snap := &model.Snapshot{
		Namespace: x, RedisTime: now,
		Pools: []model.Pool{{ID: x, Status: model.StatusDead, HeartbeatAge: &age,
			Heartbeat:  &model.Heartbeat{Host: x, JobNames: []string{x}, WorkerIDs: []string{x}},
			InProgress: map[string]int64{x: 1}, LockInfo: map[string]int64{x: 2}}},
		JobTypes: []model.JobType{{Name: x}},
		Orphans:  []model.InProgressList{{Key: x, JobName: x, PoolID: x, Length: 1}},
		Findings: []model.Finding{{Kind: model.FindingDeadPool, Subject: x, Detail: x}},
	}
	v := snapshotToJSON(snap)
	got, err := appendSnapshotJSON(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range string(got) {
		if r != '\n' && textsafe.Clean(string(r)) != string(r) {
			t.Fatalf("raw %U at byte %d of\n%s", r, i, got)
		}
	}
	var back, want any
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	js, _ := json.Marshal(v)
	if err := json.Unmarshal(js, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("decodes to\n%v\nwant\n%v", back, want)
	}
	if n := strings.Count(string(got), `\u202e`); n < 10 {
		t.Fatalf("%d escapes of U+202E, want one per string (at least 10):\n%s", n, got)
	}
}

// TestSnapshotJSONInChunks: writeSnapshotJSON hands the output on in
// chunks; together they are what encoding/json writes, and a value JSON
// cannot hold fails before anything is written.
func TestSnapshotJSONInChunks(t *testing.T) {
	now := time.Unix(1795964200, 0)
	snap := &model.Snapshot{Namespace: "work", RedisTime: now}
	for i := 0; i < 3000; i++ {
		age := time.Duration(i) * time.Millisecond
		snap.Pools = append(snap.Pools, model.Pool{ID: fmt.Sprintf("%024x", i), Status: model.StatusAlive, HeartbeatAge: &age,
			Heartbeat:  &model.Heartbeat{HeartbeatAt: now.Unix(), Host: "h<1>", JobNames: []string{"a", "b"}, WorkerIDs: []string{"w"}},
			InProgress: map[string]int64{"b": int64(i), "a": 1, "c": 2}, LockInfo: map[string]int64{"a": 1}})
		w := model.Worker{WorkerID: fmt.Sprintf("w%d", i), PoolID: fmt.Sprintf("%024x", i)}
		if i%3 == 0 {
			run := time.Duration(i) * time.Second
			w.Busy, w.JobName, w.JobID, w.StartedAt, w.Running = true, "e<x>", fmt.Sprint(i), now.Unix()-int64(i), &run
			w.Args, w.Checkin, w.HasCheckin = fmt.Sprintf(`{"n": %d, "s": "\u202e"}`, i), "ok", i%2 == 0
		}
		snap.Workers = append(snap.Workers, w)
	}
	var out chunkWriter
	if err := writeSnapshotJSON(&out, snap); err != nil {
		t.Fatal(err)
	}
	if want := encodingJSON(t, snapshotToJSON(snap)); !bytes.Equal(out.buf.Bytes(), want) {
		t.Fatalf("chunked output (%d bytes) differs from encoding/json (%d bytes)", out.buf.Len(), len(want))
	}
	if out.writes < 2 {
		t.Fatalf("%d bytes in %d writes, want chunks", out.buf.Len(), out.writes)
	}
	// No workers at all: an empty list, as encoding/json writes it.
	out = chunkWriter{}
	empty := &model.Snapshot{Namespace: "work", RedisTime: now}
	if err := writeSnapshotJSON(&out, empty); err != nil {
		t.Fatal(err)
	}
	if want := encodingJSON(t, snapshotToJSON(empty)); !bytes.Equal(out.buf.Bytes(), want) {
		t.Fatalf("empty snapshot:\n%s\nwant\n%s", out.buf.Bytes(), want)
	}
	v := snapshotToJSON(snap)
	v.Pools[2000].HeartbeatAgeSeconds = f64(math.NaN())
	written := 0
	if _, err := encodeSnapshotJSON(nil, v, nil, func(b []byte) error { written += len(b); return nil }); err == nil || written != 0 {
		t.Fatalf("NaN age: err %v after %d bytes written, want an error before any", err, written)
	}
}

// TestSnapshotJSONFindingsInChunks: the findings (one per dead pool, a
// thousand when a large namespace stopped beating) are written in chunks
// like the pools, not held whole: encoding them with encoding/json, then
// indenting and escaping copies, took about 1 MB per 1,000 findings.
func TestSnapshotJSONFindingsInChunks(t *testing.T) {
	now := time.Unix(1795964200, 0)
	snap := &model.Snapshot{Namespace: "work", RedisTime: now}
	for i := 0; i < 2000; i++ {
		snap.Findings = append(snap.Findings, model.Finding{Kind: model.FindingDeadPool, Subject: fmt.Sprintf("%024x", i),
			Detail: "no heartbeat for 17m24s (cut-off 10s); 20 jobs in progress"})
	}
	var out chunkWriter
	if err := writeSnapshotJSON(&out, snap); err != nil {
		t.Fatal(err)
	}
	if want := encodingJSON(t, snapshotToJSON(snap)); !bytes.Equal(out.buf.Bytes(), want) {
		t.Fatalf("chunked output (%d bytes) differs from encoding/json (%d bytes)", out.buf.Len(), len(want))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := writeSnapshotJSON(io.Discard, snap)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// The output buffer (a chunk) and the small parts.
	if n := after.TotalAlloc - before.TotalAlloc; n > 2*jsonChunk {
		t.Errorf("writing %d bytes of findings allocated %d bytes, want no more than two chunks (%d)", out.buf.Len(), n, 2*jsonChunk)
	}
}

type chunkWriter struct {
	buf    bytes.Buffer
	writes int
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.buf.Write(p)
}

func BenchmarkSnapshotJSON(b *testing.B) {
	v := snapshotJSON{Namespace: "work", Pools: make([]poolJSON, 1000)}
	for i := range v.Pools {
		m := map[string]int64{}
		for j := 0; j < 20; j++ {
			m["job_"+string(rune('a'+j))] = int64(j)
		}
		v.Pools[i] = poolJSON{ID: "6f1a2b3c4d5e6f7a8b9c0d1e", Status: model.StatusAlive, InProgress: m, LockInfo: m,
			HeartbeatAgeSeconds: f64(1.5), Heartbeat: &heartbeatJSON{Host: "worker-1", JobNames: []string{"a", "b"}, WorkerIDs: []string{"w"}}}
	}
	b.Run("encoding/json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			enc := json.NewEncoder(&bytes.Buffer{})
			enc.SetIndent("", "  ")
			_ = enc.Encode(v)
		}
	})
	b.Run("append", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, _ = appendSnapshotJSON(nil, v)
		}
	})
}
