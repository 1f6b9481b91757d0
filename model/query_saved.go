package model

// This file owns saved queries in a query's text: a word @NAME stands for
// the query saved under NAME (the configuration file's [queries]).

import (
	"fmt"
	"sort"
	"strings"
)

// SavedQueryName reports whether name can name a saved query: letters,
// digits, '_' and '-', so that @NAME needs no quotes in a shell or in
// the language.
func SavedQueryName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r != '_' && r != '-' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// UsesSaved reports whether text has a word @NAME.
func UsesSaved(text string) bool {
	if !strings.Contains(text, "@") {
		return false
	}
	words, err := SplitQuery(text)
	if err != nil {
		return false
	}
	for _, w := range words {
		if !w.Term && strings.HasPrefix(w.Src, "@") {
			return true
		}
	}
	return false
}

// ExpandSaved replaces every word @NAME of text (written unquoted, not a
// term) with the query saved under NAME. An unknown name is one line
// listing the known ones; from says where they come from (the
// configuration file's path).
func ExpandSaved(text string, saved map[string]string, from string) (string, error) {
	if !strings.Contains(text, "@") {
		return text, nil
	}
	words, err := SplitQuery(text)
	if err != nil {
		return "", err
	}
	out := make([]string, 0, len(words))
	for _, w := range words {
		name, ok := strings.CutPrefix(w.Src, "@")
		if w.Term || !ok {
			out = append(out, w.Src)
			continue
		}
		q, known := saved[name]
		if !known {
			return "", unknownSaved(name, saved, from)
		}
		out = append(out, q)
	}
	return strings.Join(out, " "), nil
}

func unknownSaved(name string, saved map[string]string, from string) error {
	if from == "" {
		from = "the configuration file"
	}
	if len(saved) == 0 {
		return fmt.Errorf("%w: unknown saved query %q: %s has no [queries]", ErrBadQuery, "@"+name, from)
	}
	names := make([]string, 0, len(saved))
	for n := range saved {
		names = append(names, "@"+n)
	}
	sort.Strings(names)
	return fmt.Errorf("%w: unknown saved query %q: the saved ones are %s (%s)", ErrBadQuery, "@"+name, strings.Join(names, ", "), from)
}
