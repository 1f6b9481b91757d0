//go:build unix

package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/safefile"
)

func closed(t *testing.T, d Dir, calls int) string {
	t.Helper()
	w := writeAction(t, d, calls)
	if err := w.End(End{Done: int64(calls)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.ID()
}

// Only files named as the program names journals are read; any other is
// named, quoted and escaped, as foreign. A FIFO named as a journal is
// refused without blocking; so are a link and a file others can write.
func TestForeignAndUntrustedFiles(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	id := closed(t, d, 1)
	full, err := os.ReadFile(filepath.Join(d.Path, id+ext))
	if err != nil {
		t.Fatal(err)
	}
	evil := "20991231-000000-001\x1b]0;T\a$(touch x)" + ext
	if err := os.WriteFile(filepath.Join(d.Path, evil), full, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(d.Path, "20991231-000000-002"+ext), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d.Path, id+ext), filepath.Join(d.Path, "20991231-000000-003"+ext)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path, "20991231-000000-004"+ext), full, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(d.Path, "20991231-000000-004"+ext), 0o666); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var acts []*Action
	var bad []error
	go func() {
		defer close(done)
		acts, bad, err = d.List()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("listing a journal directory holding a FIFO blocked")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Header.ID != id {
		t.Fatalf("read %d actions", len(acts))
	}
	var msgs []string
	for _, b := range bad {
		msgs = append(msgs, b.Error())
	}
	all := strings.Join(msgs, "\n")
	if len(bad) != 4 || strings.ContainsAny(all, "\x1b\a") || !strings.Contains(all, `\x1b]0;T\a$(touch x)`) ||
		!strings.Contains(all, "symbolic link") || !strings.Contains(all, "can be written by other users") {
		t.Fatalf("warnings:\n%s", all)
	}
	if _, err := d.Read("20991231-000000-001\x1b]0;T\a$(touch x)"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read by a foreign name: %v", err)
	}
	for _, s := range []func() ([]*Action, []error, error){d.List, d.Skims} {
		if err := os.Chmod(d.Path, 0o777); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s(); !errors.Is(err, safefile.ErrUntrusted) {
			t.Fatalf("directory others can write to: %v", err)
		}
	}
	if _, err := d.Read(id); !errors.Is(err, safefile.ErrUntrusted) {
		t.Fatalf("read in a directory others can write to: %v", err)
	}
	if _, err := d.Create(Header{Op: OpPause}); !errors.Is(err, safefile.ErrUntrusted) {
		t.Fatalf("create in a directory others can write to: %v", err)
	}
}

// A record whose bytes all pass their check but fail it (a flipped byte)
// marks the action altered; one cut at the end (a kill) does not. A record
// repeated byte for byte is left out, and is not altered.
func TestAlteredCutAndRepeated(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	id := closed(t, d, 3)
	path := filepath.Join(d.Path, id+ext)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ends := recordEnds(full)
	flipped := append([]byte(nil), full...)
	flipped[ends[0]+20] ^= 1 // in the first intent's payload
	cut := full[:len(full)-3]
	repeated := append(append([]byte(nil), full...), full[ends[0]:]...) // every record but the header again
	repeated = append(repeated, full...)                                // and the whole file again
	contradicting := append(append([]byte(nil), full[:ends[2]]...), full[ends[0]:ends[1]]...)
	contradicting[len(contradicting)-30] ^= 1 // the same intent, other bytes
	fixCRC(contradicting[ends[2]:])
	for _, tc := range []struct {
		name    string
		bytes   []byte
		altered bool
		calls   int
	}{
		{"whole", full, false, 3},
		{"flipped", flipped, true, 0},
		{"cut", cut, false, 3},
		{"repeated", repeated, false, 3},
		{"contradicting", contradicting, true, 1},
	} {
		if err := os.WriteFile(path, tc.bytes, 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := d.Read(id)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (a.Altered != "") != tc.altered || len(a.Calls) != tc.calls || a.Items() != tc.calls {
			t.Fatalf("%s: altered %q, %d calls, %d items, damage %q", tc.name, a.Altered, len(a.Calls), a.Items(), a.Damage)
		}
	}
}

// recordEnds are the offsets where each record of a file ends.
func recordEnds(b []byte) []int {
	var ends []int
	for off := 0; off+8 <= len(b); {
		size := int(b[off])<<24 | int(b[off+1])<<16 | int(b[off+2])<<8 | int(b[off+3])
		off += 8 + size
		ends = append(ends, off)
	}
	return ends
}

// fixCRC rewrites the checksum of the record rec starts with.
func fixCRC(rec []byte) {
	size := int(rec[0])<<24 | int(rec[1])<<16 | int(rec[2])<<8 | int(rec[3])
	c := checksum(rec[8 : 8+size])
	rec[4], rec[5], rec[6], rec[7] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
}

// Pruning never removes a journal still being written, one an undo holds,
// nor one whose undo was cut short; it names what it removed.
func TestPruneSparesJournalsInUse(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	running := writeAction(t, d, 20) // still open: its action runs
	held := closed(t, d, 20)
	undone := closed(t, d, 20)
	cutUndo, err := d.Create(Header{Op: OpUndo, UndoOf: undone, Namespace: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cutUndo.f.Close(); err != nil { // killed: no end record, lock gone
		t.Fatal(err)
	}
	plain := closed(t, d, 20)
	release, err := d.Hold(held)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Hold(running.ID()); !errors.Is(err, ErrInUse) {
		t.Fatalf("hold of a running action's journal: %v", err)
	}
	d.Max = 1
	w := writeAction(t, d, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.Pruned(), " "); got != plain {
		t.Fatalf("pruned %q, want %s", got, plain)
	}
	for _, id := range []string{running.ID(), held, undone, cutUndo.ID(), w.ID()} {
		if _, err := d.Read(id); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	release()
	running.dir.Max = 1
	if err := running.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(running.Pruned(), " "); got != held+" "+w.ID() {
		t.Fatalf("once released, pruned %q, want %s and %s", got, held, w.ID())
	}
}
