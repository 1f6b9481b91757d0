package tui

// This file owns what the header says of the job health: a first line
// naming the worst problems in words ("✖ charge_card failing 48/min (80%
// gateway timeout) · send_sms waiting 11m"), as many as fit, judged once
// per poll by the reader (model.Snapshot.Jobs); nothing when there are
// none.

import (
	"fmt"
	"strings"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// briefErrWidth is how much of a failing type's top error the brief words
// keep: whole words up to this width.
const briefErrWidth = 16

// problemsLine is the header's line of job health problems, worst first,
// within width; "" when the snapshot has none. It names the problems in
// their full words when two of them fit, else in brief ones (the top
// error cut to its first words, a starving type's wait alone).
func problemsLine(snap *model.Snapshot, width int, st styles) string {
	if snap == nil || snap.Jobs == nil || len(snap.Jobs.Problems) == 0 {
		return ""
	}
	ps := snap.Jobs.Problems
	full := make([]string, len(ps))
	brief := make([]string, len(ps))
	for i, p := range ps {
		full[i] = textsafe.Clean(p.Job + " " + p.Short)
		brief[i] = textsafe.Clean(p.Job + " " + briefWords(p))
	}
	text, n := fitProblems(full, width, " more")
	if n < min(2, len(ps)) {
		text, _ = fitProblems(brief, width, "")
	}
	return st.dead.Render(fitLine(text, width))
}

// fitProblems joins as many of words as fit width after "✖ ", counting
// the others ("· +3 more"); it returns the line and how many it names.
func fitProblems(words []string, width int, more string) (string, int) {
	const sep = " · "
	rest := func(left int) string {
		if left == 0 {
			return ""
		}
		return fmt.Sprintf("%s+%d%s", sep, left, more)
	}
	text := "✖ " + words[0]
	n := 1
	for ; n < len(words); n++ {
		if lineWidth(text+sep+words[n]+rest(len(words)-n-1)) > width {
			break
		}
		text += sep + words[n]
	}
	tail := rest(len(words) - n)
	if lineWidth(text+tail) > width {
		text = strings.TrimRight(fitCell(text, max(width-lineWidth(tail), 10), false), " ")
	}
	return text + tail, n
}

// briefWords are a problem's words in brief: a failing type's top error
// cut to its first words, a starving type's wait without what holds it.
func briefWords(p model.JobProblem) string {
	switch p.Kind {
	case model.FindingFailing:
		if len(p.Errors) == 0 {
			break
		}
		return fmt.Sprintf("failing %s/min (%d%% %s)", model.FormatRate(p.Rate), p.Share, firstWords(errCore(p.Errors[0].Err), briefErrWidth))
	case model.FindingStarving:
		return "waiting " + model.ShortAge(p.Wait)
	}
	return p.Short
}

// firstWords is s cut to its whole words within width (the first word cut
// when it alone is wider).
func firstWords(s string, width int) string {
	out := ""
	for _, w := range strings.Fields(s) {
		next := w
		if out != "" {
			next = out + " " + w
		}
		if lineWidth(next) > width {
			break
		}
		out = next
	}
	if out == "" {
		return strings.TrimRight(fitCell(s, width, false), " ")
	}
	return out
}

// errCore is the part of a normalised error that says what went wrong:
// what follows its last ": " (errors wrap with their context first:
// "stripe: POST /vN/charges: N gateway timeout"), without the leading
// numbers normalised to N; the whole text when nothing is left.
func errCore(s string) string {
	core := s
	if i := strings.LastIndex(s, ": "); i >= 0 {
		core = s[i+2:]
	}
	words := strings.Fields(core)
	for len(words) > 0 && words[0] == "N" {
		words = words[1:]
	}
	if len(words) == 0 {
		return s
	}
	return strings.Join(words, " ")
}
