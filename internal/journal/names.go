package journal

import (
	"os"
	"strconv"
	"strings"
)

// An action's ID is its UTC time to the second and its number within that
// second, as newID writes it: 8 digits, '-', 6 digits, '-', 3 digits. Only
// files named by such an ID and the extension are read as journals; the
// name of any other file is printed quoted and escaped, never raw.

// ValidID is whether id has the form of an action's ID.
func ValidID(id string) bool {
	if len(id) != len("20060102-150405-001") {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case i == 8 || i == 15:
			if c != '-' {
				return false
			}
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

// idOfName is the action ID a file name holds, and whether it is the name
// of a journal.
func idOfName(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ext)
	return id, ok && ValidID(id)
}

// quoteName is a file name as an error shows it: quoted, with every byte
// that is not printable ASCII escaped.
func quoteName(name string) string { return strconv.QuoteToASCII(name) }

// HoldsJournals is whether directory path holds a file named as a
// journal (without reading any).
func HoldsJournals(path string) bool {
	entries, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if _, ok := idOfName(e.Name()); ok {
			return true
		}
	}
	return false
}
