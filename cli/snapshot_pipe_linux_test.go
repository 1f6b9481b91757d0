package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// fGetPipeSize is F_GETPIPE_SZ (linux/fcntl.h).
const fGetPipeSize = 1032

func pipeSize(t *testing.T, f *os.File) int {
	t.Helper()
	n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fGetPipeSize, 0)
	if errno != 0 {
		t.Fatalf("F_GETPIPE_SZ: %v", errno)
	}
	return int(n)
}

func TestWidenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	defer func() { _ = w.Close() }()
	if n := pipeSize(t, w); n >= snapshotPipeSize {
		t.Fatalf("a new pipe already holds %d bytes", n)
	}
	widenPipe(w)
	if n := pipeSize(t, w); n != snapshotPipeSize {
		t.Fatalf("pipe holds %d bytes after widenPipe, want %d", n, snapshotPipeSize)
	}
	// A regular file is left alone and still written to.
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	widenPipe(f)
	if _, err := f.WriteString("x"); err != nil {
		t.Fatal(err)
	}
}
