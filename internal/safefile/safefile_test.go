//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// within fails the test when f takes more than a few seconds: a FIFO
// opened for reading without O_NONBLOCK waits for a writer forever.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked")
	}
}

// A FIFO, a directory or a device in place of a file is refused at once,
// for reading and for appending, whatever the rules.
func TestOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, dir, "/dev/zero"} {
		for _, r := range []Rules{{}, {NoFollow: true}, {Private: true, Max: 10}} {
			within(t, func() {
				if _, _, err := ReadFile(p, r); !errors.Is(err, ErrNotRegular) {
					t.Errorf("read %s %+v: %v", p, r, err)
				}
				if f, _, err := OpenAppend(p, r, 0o600); !errors.Is(err, ErrNotRegular) {
					if f != nil {
						_ = f.Close()
					}
					t.Errorf("append %s %+v: %v", p, r, err)
				}
			})
		}
	}
}

// A file swapped for a FIFO between the check and the open is refused by
// the check of the open file, without blocking in the open.
func TestFIFOAfterTheCheck(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, func() {
		f, err := os.OpenFile(fifo, os.O_RDONLY|oNonBlock, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = f.Close() }() // opened for reading
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if err := check(fifo, fi, Rules{}); !errors.Is(err, ErrNotRegular) {
			t.Fatalf("check of an open FIFO: %v", err)
		}
	})
}

func TestLinksSizeAndTrust(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if b, _, err := ReadFile(link, Rules{}); err != nil || string(b) != "0123456789" {
		t.Fatalf("followed link: %q %v", b, err)
	}
	if _, _, err := ReadFile(link, Rules{NoFollow: true}); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("link not followed: %v", err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "created-through-the-link"), dangling); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenAppend(dangling, Rules{NoFollow: true}, 0o600); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("append through a dangling link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "created-through-the-link")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file was created through the link: %v", err)
	}
	if _, _, err := ReadFile(file, Rules{Max: 9}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("size bound: %v", err)
	}
	if err := os.Chmod(file, 0o620); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(file, Rules{Private: true}); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("group-writable: %v", err)
	}
	if _, _, err := ReadFile(file, Rules{}); err != nil {
		t.Fatalf("group-writable without Private: %v", err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := TrustedDir(dir); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("world-writable directory: %v", err)
	}
}

// A file of another user is refused (run as root the test makes one; as
// anyone else a file of root's is at hand).
func TestOwnedByAnotherUser(t *testing.T) {
	path := "/etc/hostname"
	if os.Geteuid() == 0 {
		path = filepath.Join(t.TempDir(), "theirs")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if uid, ok := ownerOf(fi); !ok || uid == os.Geteuid() {
		t.Fatalf("%s: owner %d %v", path, uid, ok)
	}
	if _, _, err := Open(path, Rules{Private: true}); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("file of another user: %v", err)
	}
}
