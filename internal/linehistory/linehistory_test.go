package linehistory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/safefile"
)

// TestSaveLoad: the history comes back as saved, newest Max lines, in a
// file of mode 0600 in a directory of mode 0700; lines that may carry a
// secret are never written.
func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "workq-tui")
	f := File{Path: DefaultPath(filepath.Join(dir, "audit.log"))}
	var lines []string
	for i := range Max + 50 {
		lines = append(lines, fmt.Sprintf("where job:n%d", i))
	}
	lines = append(lines, "target redis://ops:hunter2@db:6379", "where args.password:x", "  ", "where\x1b[2Jjob:x")
	if err := f.Save(lines); err != nil {
		t.Fatal(err)
	}
	got, err := f.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != Max || got[0] != "where job:n51" || got[len(got)-1] != `where\x1b[2Jjob:x` {
		t.Fatalf("loaded %d lines, first %q, last %q", len(got), got[0], got[len(got)-1])
	}
	data, _ := os.ReadFile(f.Path)
	if strings.Contains(string(data), "hunter2") || strings.Contains(string(data), "password") {
		t.Errorf("a secret was written:\n%s", data)
	}
	st, err := os.Stat(f.Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v", st.Mode().Perm(), err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, %v", st.Mode().Perm(), err)
	}
}

// TestLoadRefuses: a missing file is an empty history; a file others can
// write and a symbolic link are refused.
func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	if got, err := (File{Path: filepath.Join(dir, "none")}).Load(); err != nil || len(got) != 0 {
		t.Errorf("missing: %q %v", got, err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("where job:x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := (File{Path: open}).Load(); err == nil || !errors.Is(err, safefile.ErrUntrusted) {
		t.Errorf("world-writable: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(open, link); err != nil {
		t.Fatal(err)
	}
	if _, err := (File{Path: link}).Load(); err == nil {
		t.Error("a symbolic link is read")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := (File{Path: fifo}).Load(); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("loading a FIFO as the history waits on it: the screen would never start")
	}
}

// Two screens on the same history (a fleet's targets, two terminals) each
// add their lines: none writes over the other's, and the file is the
// owner's alone.
func TestAppendFromTwoScreens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "cmdline_history")
	a, b := File{Path: path}, File{Path: path}
	for _, step := range []struct {
		f    File
		line string
	}{{a, "jobs dead"}, {b, "target billing"}, {a, "where err~timeout"}, {b, "set-password hunter2"}} {
		if err := step.f.Append([]string{step.line}); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := a.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lines, "|"); got != "jobs dead|target billing|where err~timeout" {
		t.Errorf("history %q", got)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", st, err)
	}
}

// Appends past trimAt write the file again with its newest Max lines.
func TestAppendTrims(t *testing.T) {
	f := File{Path: filepath.Join(t.TempDir(), "cmdline_history")}
	line := strings.Repeat("x", 200)
	for i := 0; i < trimAt/200+10; i++ {
		if err := f.Append([]string{fmt.Sprintf("%s %d", line, i)}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(f.Path)
	if err != nil || st.Size() > trimAt {
		t.Fatalf("file of %v bytes (%v), want at most %d", st.Size(), err, trimAt)
	}
	lines, err := f.Load()
	if err != nil || len(lines) != Max || !strings.HasSuffix(lines[Max-1], fmt.Sprintf(" %d", trimAt/200+9)) {
		t.Fatalf("%d lines, the last %q (%v)", len(lines), lines[len(lines)-1], err)
	}
}
