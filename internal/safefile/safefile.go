// Package safefile opens the files the program reads or appends to on the
// user's behalf (the configuration file, password files, the audit log and
// the journal) so that no such path can hang it or make it trust a file
// someone else controls: only regular files are opened (checked before the
// open, and again on the open file), the open never blocks (a FIFO or a
// device in place of a file is refused, not waited on), what is read is
// bounded, and, where the rules ask, a symbolic link is not followed and a
// file owned by another user or writable by others is refused.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Rules is what a file must be besides a regular file.
type Rules struct {
	// NoFollow refuses a symbolic link as the path's last element.
	NoFollow bool
	// Private refuses a file not owned by the user or that users other
	// than the owner can write to.
	Private bool
	// Max bounds the file's size in bytes (0: no bound).
	Max int64
}

// ErrNotRegular: the path is not a regular file (a FIFO, a device, a
// directory, a socket, or a symbolic link where none is followed).
var ErrNotRegular = errors.New("not a regular file")

// ErrUntrusted: the file or directory is owned by another user or others
// can write to it.
var ErrUntrusted = errors.New("not trusted")

// ErrTooLarge: the file is larger than the rules allow.
var ErrTooLarge = errors.New("too large")

// OthersCanRead reports whether permission bits let users other than the
// owner (its group, or anyone) read a file.
func OthersCanRead(perm fs.FileMode) bool { return perm&0o044 != 0 }

// OthersCanWrite reports whether permission bits let users other than the
// owner (its group, or anyone) write to a file or directory.
func OthersCanWrite(perm fs.FileMode) bool { return perm&0o022 != 0 }

// Open opens path for reading under r: the file and what it is.
func Open(path string, r Rules) (*os.File, fs.FileInfo, error) {
	return open(path, r, os.O_RDONLY, 0)
}

// OpenAppend opens path for appending under r, creating it with perm when
// it is missing (never through a symbolic link when r.NoFollow).
func OpenAppend(path string, r Rules, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	return open(path, r, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

func open(path string, r Rules, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	stat := os.Stat
	if r.NoFollow {
		stat = os.Lstat
	}
	before, err := stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0:
	case err != nil:
		return nil, nil, err
	default:
		if err := check(path, before, r); err != nil {
			return nil, nil, err
		}
	}
	if r.NoFollow {
		flag |= oNoFollow
	}
	f, err := os.OpenFile(path, flag|oNonBlock, perm)
	if err != nil {
		if isLoop(err) {
			return nil, nil, fmt.Errorf("%s: a symbolic link: %w", path, ErrNotRegular)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = check(path, fi, r)
	}
	if err != nil {
		_ = f.Close() // refused: the error above is the one to report
		return nil, nil, err
	}
	return f, fi, nil
}

// check applies r to what a stat of path said.
func check(path string, fi fs.FileInfo, r Rules) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s: a symbolic link: %w", path, ErrNotRegular)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(fi.Mode()))
	case r.Max > 0 && fi.Size() > r.Max:
		return fmt.Errorf("%s: %d bytes, more than %d: %w", path, fi.Size(), r.Max, ErrTooLarge)
	}
	if r.Private {
		return Trusted(path, fi)
	}
	return nil
}

// Trusted refuses a file or directory owned by another user or that users
// other than its owner can write to.
func Trusted(path string, fi fs.FileInfo) error {
	if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s is owned by another user (uid %d): %w", path, uid, ErrUntrusted)
	}
	if perm := fi.Mode().Perm(); OthersCanWrite(perm) {
		return fmt.Errorf("%s can be written by other users (mode %04o): %w; chmod go-w %s", path, perm, ErrUntrusted, path)
	}
	return nil
}

// TrustedDir refuses a directory that is not one (a symbolic link to one
// is followed), is owned by another user or that others can write to.
func TrustedDir(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", path)
	}
	return Trusted(path, fi)
}

// ReadFile reads the whole of path under r; without r.Max it reads at most
// DefaultMax bytes.
func ReadFile(path string, r Rules) ([]byte, fs.FileInfo, error) {
	if r.Max <= 0 {
		r.Max = DefaultMax
	}
	f, fi, err := Open(path, r)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = f.Close() }() // opened for reading
	b, err := io.ReadAll(io.LimitReader(f, r.Max+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(b)) > r.Max {
		return nil, nil, fmt.Errorf("%s: more than %d bytes: %w", path, r.Max, ErrTooLarge)
	}
	return b, fi, nil
}

// DefaultMax bounds ReadFile without a Max of its own.
const DefaultMax = 16 << 20

// kind names a file mode's type for an error.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.Type().String()
}
