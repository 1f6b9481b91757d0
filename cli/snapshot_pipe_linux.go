package cli

import (
	"io"
	"os"
	"syscall"
)

// fSetPipeSize is F_SETPIPE_SZ (linux/fcntl.h), which package syscall does
// not name.
const fSetPipeSize = 1031

// snapshotPipeSize is the pipe buffer asked for: the kernel's limit for an
// unprivileged process by default (/proc/sys/fs/pipe-max-size).
const snapshotPipeSize = 1 << 20

// widenPipe asks for a bigger buffer when w is a pipe (`snapshot --json |
// jq`), so that megabytes of JSON go out in a few writes that do not wait
// for the reader to drain 64 KB at a time. Anything else, or a refusal, is
// left as it is: the output is the same, only slower.
func widenPipe(w io.Writer) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSize, snapshotPipeSize)
	})
}
