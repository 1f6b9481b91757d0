package tui

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/linehistory"
)

// TestCmdLineHistoryAcrossRuns: a line run on the command line is kept in
// the history file (mode 0600) and comes back with up in the next run.
func TestCmdLineHistoryAcrossRuns(t *testing.T) {
	f := linehistory.File{Path: filepath.Join(t.TempDir(), "workq-tui", "cmdline_history")}
	o, _ := setsOptions(deadFixture())
	o.CmdLineStore = f
	runProgram(t, o, 100, 30, waitText("worker-a"),
		keyMsg(":"), keyMsg("jobs dead"), keyMsg("enter"), waitText("i/o timeout"))
	var lines []string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var err error
		if lines, err = f.Load(); err != nil {
			t.Fatal(err)
		}
		if len(lines) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Join(lines, "|") != "jobs dead" {
		t.Fatalf("history file holds %q", lines)
	}
	if st, err := os.Stat(f.Path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode: %v %v", st, err)
	}
	o2, _ := setsOptions(deadFixture())
	o2.CmdLines, o2.CmdLineStore = lines, f
	view := runProgram(t, o2, 100, 30, waitText("worker-a"),
		keyMsg(":"), keyMsg("up"), waitText(":jobs dead"))
	if !strings.Contains(view, ":jobs dead") {
		t.Errorf("up does not bring back the last run's line:\n%s", view)
	}
}

// TestCmdLineHistoryNotRead: a history that could not be read is said in
// the status line.
func TestCmdLineHistoryNotRead(t *testing.T) {
	o, _ := setsOptions(deadFixture())
	o.CmdLinesErr = "command history not read: command history /x can be written by others (mode 0666): chmod 600 /x"
	view := runProgram(t, o, 120, 30, waitText("worker-a"))
	if !strings.Contains(view, "command history not read: command history /x can be written by others (mode 0666): chmod 600 /x") {
		t.Errorf("the reason is not on screen:\n%s", view)
	}
}

// blockingStore holds its first write until release is closed and keeps
// the lines of every write, in the order the writes end; two is closed at
// the second.
type blockingStore struct {
	release, two chan struct{}
	mu           sync.Mutex
	calls        int
	written      [][]string
}

func (s *blockingStore) Append(lines []string) error {
	s.mu.Lock()
	s.calls++
	first := s.calls == 1
	s.mu.Unlock()
	if first {
		<-s.release
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written = append(s.written, lines)
	if len(s.written) == 2 {
		close(s.two)
	}
	return nil
}

// TestCmdLineHistoryWritesInOrder: a line run while the line before is
// still being written is written after it, never before: the file ends
// with every line run, in order, however slow the first write.
func TestCmdLineHistoryWritesInOrder(t *testing.T) {
	st := &blockingStore{release: make(chan struct{}), two: make(chan struct{})}
	o, _ := setsOptions(deadFixture())
	o.CmdLineStore = st
	runProgram(t, o, 100, 30, waitText("worker-a"),
		keyMsg(":"), keyMsg("orphans"), keyMsg("enter"), waitText("[Orphans]"),
		keyMsg(":"), keyMsg("workers"), keyMsg("enter"), waitText("[Workers]"),
		func() { close(st.release) },
		func() {
			select {
			case <-st.two:
			case <-time.After(5 * time.Second):
				t.Fatal("the second history was never written")
			}
		})
	st.mu.Lock()
	defer st.mu.Unlock()
	var all []string
	for _, w := range st.written {
		all = append(all, w...)
	}
	if got := strings.Join(all, "|"); got != "orphans|workers" {
		t.Errorf("the lines written are %q, want both in the order run (writes: %q)", got, st.written)
	}
}
