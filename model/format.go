// Words for the operator: ages and counted nouns, shared by every command
// and view.

package model

import (
	"fmt"
	"time"
)

// FormatAge prints a duration the way an operator reads it: 4s, 2m05s,
// 3h02m, 2d04h.
func FormatAge(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	s := int64(d / time.Second)
	var out string
	switch {
	case s < 60:
		out = fmt.Sprintf("%ds", s)
	case s < 3600:
		out = fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		out = fmt.Sprintf("%dh%02dm", s/3600, (s%3600)/60)
	default:
		out = fmt.Sprintf("%dd%02dh", s/86400, (s%86400)/3600)
	}
	if neg {
		return "-" + out
	}
	return out
}

// Plural is n with the noun in the form that fits: "1 job", "0 jobs",
// "3 lock_info entries".
func Plural[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ShortIDLen is how many characters of an ID ShortID keeps.
const ShortIDLen = 12

// ShortID shortens a long ID (a pool's 24 hex characters, a worker's, a
// job's) to its first ShortIDLen characters and "…", which tells one pool
// from another in practice and leaves room for the columns that matter.
func ShortID(id string) string {
	n := 0
	for i := range id {
		if n == ShortIDLen {
			if i < len(id) {
				return id[:i] + "…"
			}
			break
		}
		n++
	}
	return id
}
