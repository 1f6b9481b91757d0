package tui

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// argLines is a job's arguments as the screen shows them: JSON indented by
// two spaces per level, each later line starting with indent, every line
// cleaned. ok is false when raw is not JSON: the one line is then the raw
// text, cleaned. The detail, Jobs and Workers views all show arguments
// through it.
func argLines(raw []byte, indent string) (lines []string, ok bool) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, indent, "  "); err != nil {
		return []string{textsafe.Clean(string(raw))}, false
	}
	lines = strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = textsafe.Clean(l)
	}
	return lines, true
}
