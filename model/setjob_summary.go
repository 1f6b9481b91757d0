package model

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// maxErrorKey bounds a normalised error text, so that a summary of a huge set
// with long, varied errors stays small.
const maxErrorKey = 200

// NormalizeError folds what varies between occurrences of one error so that
// they count together: each run of letters and digits that looks like an ID
// (8 or more hex digits, at least one a digit, optionally 0x-prefixed)
// becomes "<id>", and every other run of decimal digits becomes "N".
// Whitespace runs become one space; the result is at most 200 bytes.
func NormalizeError(s string) string {
	var b strings.Builder
	i := 0
	space := false
	for i < len(s) && b.Len() < maxErrorKey {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			space = true
			i++
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if !isAlnum(c) {
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		if namesNumber(s, i, j) {
			b.WriteString(s[i:j])
		} else {
			b.WriteString(foldWord(s[i:j]))
		}
		i = j
	}
	out := b.String()
	if len(out) > maxErrorKey {
		out = out[:maxErrorKey]
		for !utf8.ValidString(out) {
			out = out[:len(out)-1]
		}
	}
	return out
}

// namesNumber reports whether the word s[i:j] is a short number that is
// part of a name rather than a value that varies: digits after a word of
// capitals and a hyphen, as in UTF-8, UTF-16 or SHA-256.
func namesNumber(s string, i, j int) bool {
	if j-i > 3 || i < 3 || s[i-1] != '-' {
		return false
	}
	for k := i; k < j; k++ {
		if s[k] < '0' || s[k] > '9' {
			return false
		}
	}
	k := i - 1
	for k > 0 && s[k-1] >= 'A' && s[k-1] <= 'Z' {
		k--
	}
	return i-1-k >= 2 && (k == 0 || !isAlnum(s[k-1]))
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func foldWord(w string) string {
	hex := strings.TrimPrefix(strings.TrimPrefix(w, "0x"), "0X")
	if len(hex) >= 8 && isHex(hex) && strings.ContainsAny(hex, "0123456789") {
		return "<id>"
	}
	if len(w) > 2 && (w[:2] == "0x" || w[:2] == "0X") && isHex(w[2:]) {
		return "<id>"
	}
	var b strings.Builder
	for i := 0; i < len(w); {
		if w[i] >= '0' && w[i] <= '9' {
			for i < len(w) && w[i] >= '0' && w[i] <= '9' {
				i++
			}
			b.WriteByte('N')
			continue
		}
		b.WriteByte(w[i])
		i++
	}
	return b.String()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// SetSummary counts the members of a job set by job type and by error.
type SetSummary struct {
	Set SetName
	// Members is how many distinct members were counted.
	Members int64
	// ByName counts jobs per job name; members that are not jobs count
	// under the name "" with NotJobs.
	ByName map[string]int64
	// ByError counts jobs per normalised error text ("" for none).
	ByError map[string]int64
	// ErrorExample is one original error text per normalised one.
	ErrorExample map[string]string
	// NotJobs is how many members are not JSON objects.
	NotJobs int64

	// lastErr and lastKey are the last error text normalised and its
	// key: the members of an outage mostly carry the same error, one
	// after another.
	lastErr, lastKey string
}

// NewSetSummary returns an empty summary of a set.
func NewSetSummary(set SetName) *SetSummary {
	return &SetSummary{Set: set, ByName: map[string]int64{}, ByError: map[string]int64{}, ErrorExample: map[string]string{}}
}

// Add counts one member.
func (s *SetSummary) Add(sj SetJob) {
	s.Members++
	if sj.Job == nil {
		s.NotJobs++
		return
	}
	s.ByName[sj.Job.Name]++
	k := s.lastKey
	if len(s.ByError) == 0 || sj.Job.LastErr != s.lastErr {
		k = NormalizeError(sj.Job.LastErr)
		s.lastErr, s.lastKey = sj.Job.LastErr, k
	}
	s.ByError[k]++
	if _, ok := s.ErrorExample[k]; !ok {
		s.ErrorExample[k] = sj.Job.LastErr
	}
}

// Count is one line of a summary.
type Count struct {
	Key string
	N   int64
}

// Sorted returns the counts of m, largest first, then by key.
func Sorted[N int | int64](m map[string]N) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{k, int64(n)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Key < out[j].Key
	})
	return out
}
