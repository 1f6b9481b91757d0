//go:build !unix

package safefile

import "io/fs"

// Without O_NOFOLLOW and O_NONBLOCK the checks before and after the open
// stand alone.
const (
	oNoFollow = 0
	oNonBlock = 0
)

func isLoop(error) bool { return false }

// ownerOf: no owner to compare on this system.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }
