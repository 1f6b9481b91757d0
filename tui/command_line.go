package tui

import (
	"strings"

	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// CommandLiner makes the command lines the screen prints for a person to
// run, so that pasted they run against the Redis and namespace on screen;
// it only formats.
type CommandLiner interface {
	// CommandWords is the command line of words (the words after the
	// program's name) as shell words: the program's name and the
	// connection flags in force first, every word quoted for a POSIX
	// shell where it needs it.
	CommandWords(words []string) []string
}

// shellPiece is a piece of a command line: a shell word, or with inQuote
// the rest of a single-quoted word whose text may break at the space
// before it (a query, where a line break is a space like any other).
type shellPiece struct {
	text    string
	inQuote bool
}

// commandLines lays pieces out in lines of at most width columns where
// they fit: joined by spaces while they do, broken with a backslash
// between words, and inside the quotes of a query only when the query
// does not fit a line of its own; the first line starts with first, the
// others with indent. Every line break keeps what the shell reads, so
// that the lines paste as one command.
func commandLines(pieces []shellPiece, width int, first, indent string) []string {
	var lines []string
	line, fresh := first, true // fresh: nothing on line after its indent
	add := func(text string, room int) {
		sep := " "
		if fresh {
			sep = ""
		}
		if !fresh && textsafe.Width(line+sep+text)+room > width {
			lines = append(lines, line+" \\")
			line, sep = indent, ""
		}
		line += sep + text
		fresh = false
	}
	for i := 0; i < len(pieces); {
		// A word is a piece and the pieces inside its quotes after it.
		j := i + 1
		for j < len(pieces) && pieces[j].inQuote {
			j++
		}
		texts := make([]string, 0, j-i)
		for _, p := range pieces[i:j] {
			texts = append(texts, p.text)
		}
		room := 0
		if j < len(pieces) {
			room = len(" \\")
		}
		word := strings.Join(texts, " ")
		if fresh || textsafe.Width(line+" "+word)+room <= width || textsafe.Width(indent+word)+room > width {
			// On this line, or broken inside its quotes where it must.
			add(texts[0], 0)
			for _, t := range texts[1:] {
				if textsafe.Width(line+" "+t) > width {
					lines = append(lines, line)
					line = indent + t
					continue
				}
				line += " " + t
			}
		} else {
			add(word, room)
		}
		i = j
	}
	return append(lines, line)
}

// queryPieces are the pieces of a quoted query word: a piece per term,
// the ones after the first breakable inside the quotes. A word not in
// single quotes stays one piece.
func queryPieces(word string) []shellPiece {
	if len(word) < 2 || word[0] != '\'' || word[len(word)-1] != '\'' || strings.Contains(word[1:len(word)-1], "'") {
		return []shellPiece{{text: word}}
	}
	terms := strings.Split(word, " ")
	out := make([]shellPiece, 0, len(terms))
	for i, t := range terms {
		out = append(out, shellPiece{text: t, inQuote: i > 0})
	}
	return out
}
