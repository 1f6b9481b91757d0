package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Auditor records every executed action.
type Auditor interface {
	Record(e AuditEntry) error
}

// AuditEntry is one executed action.
type AuditEntry struct {
	Time      time.Time
	Address   string // never with a password
	Namespace string
	Action    string
	Targets   []string
	Moved     int64
	Result    string
}

// FileAudit appends one line per entry to a file, creating it (and its
// directory) on first use, readable by the owner only. The OS user is
// recorded on every line.
type FileAudit struct {
	Path string
	User string
	mu   sync.Mutex
}

// Record appends e as one line:
//
//	2026-11-29T15:30:00Z user=ops redis=localhost:6379 namespace=work action=reap targets=id1,id2 moved=14 result="reaped 2 pools, ..."
func (f *FileAudit) Record(e AuditEntry) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Path == "" {
		return errors.New("no audit log path")
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("create audit log directory: %w", err)
	}
	fh, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open audit log: %w", err)
	}
	_, werr := fh.WriteString(FormatAudit(f.User, e))
	cerr := fh.Close()
	if werr != nil {
		return fmt.Errorf("write audit log: %w", werr)
	}
	if cerr != nil {
		return fmt.Errorf("close audit log: %w", cerr)
	}
	return nil
}

// FormatAudit is one audit line, ending in a newline. Values with spaces,
// quotes or control characters are quoted, so a line is always one line and
// splits into key=value fields.
func FormatAudit(user string, e AuditEntry) string {
	fields := []string{
		e.Time.UTC().Format(time.RFC3339),
		"user=" + auditValue(user),
		"redis=" + auditValue(e.Address),
		"namespace=" + auditValue(e.Namespace),
		"action=" + auditValue(e.Action),
		"targets=" + auditValue(strings.Join(e.Targets, ",")),
		"moved=" + strconv.FormatInt(e.Moved, 10),
		"result=" + auditValue(e.Result),
	}
	return strings.Join(fields, " ") + "\n"
}

func auditValue(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r <= ' ' || r == '"' || r == '=' || r == 0x7f || r >= 0x80 {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// DefaultAuditPath is the audit log in the user's state directory:
// $XDG_STATE_HOME/workq-tui/audit.log, else ~/.local/state/workq-tui/audit.log.
func DefaultAuditPath(getenv func(string) string, home string) (string, error) {
	if dir := getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "workq-tui", "audit.log"), nil
	}
	if home == "" {
		return "", errors.New("no home directory for the audit log: set --audit-log or XDG_STATE_HOME")
	}
	return filepath.Join(home, ".local", "state", "workq-tui", "audit.log"), nil
}
