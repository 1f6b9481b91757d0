//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"syscall"
)

const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)

// isLoop is the error of an O_NOFOLLOW open of a symbolic link.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// ownerOf is the user ID owning the file fi describes.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
