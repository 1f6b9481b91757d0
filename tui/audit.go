package tui

import "github.com/workq-tui/workq-tui/internal/audit"

// Auditor records every executed action; the program gives the screen an
// *audit.File, tests a list in memory.
type Auditor interface {
	Record(e audit.Entry) error
}

// FileAudit is the audit log the program gives the screen.
type FileAudit = audit.File

// DefaultAuditPath is where the audit log goes unless a path is given (see
// audit.DefaultPath).
func DefaultAuditPath(getenv func(string) string, home string) (string, error) {
	return audit.DefaultPath(getenv, home)
}
