//go:build unix

package journal

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an advisory lock on f without waiting: shared (an undo
// reading the journal) or exclusive (the action writing it, or the pruner
// about to remove it). errBusy when another holds a lock that conflicts.
func lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errBusy
		}
		return err
	}
}
