package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/redisq"
)

// Exit statuses of the program.
const (
	ExitOK       = 0
	ExitError    = 1
	ExitUsage    = 2
	ExitFindings = 3
)

// exitCodeError carries an exit status other than 1 up to Run.
type exitCodeError struct {
	code int
	err  error // nil: print nothing
	// help names the command whose --help the usage hint points to.
	help string
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitCodeError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error {
	return &exitCodeError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

// errFindings makes a command exit 3 without printing an error.
var errFindings = &exitCodeError{code: ExitFindings}

// localError is an error of this process or of the operator's answer, not
// of Redis: the Redis address is not added to it.
type localError struct{ err error }

func (e localError) Error() string { return e.err.Error() }
func (e localError) Unwrap() error { return e.err }

func localErrorf(format string, a ...any) error { return localError{fmt.Errorf(format, a...)} }

// withAddress makes an error of a command that reached Redis name the
// address, once: every exit-1 error says which Redis it is about. Usage
// errors, findings and local errors are left as they are; address is ""
// when the command never got as far as a Redis address.
func withAddress(err error, address string) error {
	var ec *exitCodeError
	var le localError
	switch {
	case err == nil, address == "", errors.As(err, &ec), errors.As(err, &le):
		return err
	case strings.Contains(err.Error(), "redis at "+address):
		// Named already. A network error that names the address as its
		// remote end ("read tcp A->ADDR: connection reset") is not.
		return err
	}
	return fmt.Errorf("redis at %s: %w", address, err)
}

// exitCode prints err (one line, with a hint where the operator can fix
// the cause) and maps it to the process exit status. The message goes
// through textsafe.Clean: it may quote a key, a pool ID or a job name read
// from Redis or given on the command line, and its newlines, escapes and
// bidi characters are shown as visible escapes, which also keeps it on one
// line.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	code := ExitError
	var ec *exitCodeError
	if errors.As(err, &ec) {
		code = ec.code
		if ec.err == nil {
			return code
		}
	}
	msg := textsafe.Clean(err.Error())
	if hint := redisq.Hint(err); hint != "" && !strings.Contains(msg, "REDIS_PASSWORD") {
		msg += " (" + hint + ")"
	}
	fmt.Fprintf(stderr, "workq-tui: %s\n", msg)
	if code == ExitUsage {
		help := "workq-tui --help"
		if ec.help != "" {
			help = "workq-tui " + ec.help + " --help"
		}
		fmt.Fprintf(stderr, "Run '%s' for usage.\n", help)
	}
	return code
}
