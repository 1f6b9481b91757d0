// The one rule for files that hold a secret or name where one is: users
// other than the owner must not be able to read them.

package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/workq-tui/workq-tui/internal/safefile"
)

// maxSecretBytes bounds what a password file may hold: a password is a
// line, and a path given by mistake (a log, a device) is not read whole.
const maxSecretBytes = 64 << 10

// ReadSecretFile reads a file holding a password, without its trailing
// newline. A file other users can read is refused, as a configuration file
// naming a password source is: the password has leaked to them already, and
// using it would hide that. The error names the file and the chmod that
// fixes it.
func ReadSecretFile(path string) (string, error) {
	// Only a regular file is read, so a FIFO or a device given by mistake
	// cannot hang the program.
	b, st, err := safefile.ReadFile(path, safefile.Rules{Max: maxSecretBytes})
	if errors.Is(err, safefile.ErrTooLarge) {
		return "", fmt.Errorf("%s holds more than %d KiB, not a password", path, maxSecretBytes>>10)
	}
	if err != nil {
		return "", err
	}
	if perm := st.Mode().Perm(); safefile.OthersCanRead(perm) {
		return "", fmt.Errorf("%s holds a password but other users can read it (mode %04o): chmod 600 %s", path, perm, path)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}
