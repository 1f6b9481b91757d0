// The one rule for files that hold a secret or name where one is: users
// other than the owner must not be able to read them.

package config

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// othersCanRead reports whether permission bits let users other than the
// owner (its group, or anyone) read a file.
func othersCanRead(perm fs.FileMode) bool { return perm&0o044 != 0 }

// maxSecretBytes bounds what a password file may hold: a password is a
// line, and a path given by mistake (a log, a device) is not read whole.
const maxSecretBytes = 64 << 10

// ReadSecretFile reads a file holding a password, without its trailing
// newline. A file other users can read is refused, as a configuration file
// naming a password source is: the password has leaked to them already, and
// using it would hide that. The error names the file and the chmod that
// fixes it.
func ReadSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // opened for reading
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if perm := st.Mode().Perm(); othersCanRead(perm) {
		return "", fmt.Errorf("%s holds a password but other users can read it (mode %04o): chmod 600 %s", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxSecretBytes {
		return "", fmt.Errorf("%s holds more than %d KiB, not a password", path, maxSecretBytes>>10)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}
