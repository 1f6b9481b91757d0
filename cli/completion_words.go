package cli

// This file reads a completion request's words: which command, which flag
// or operand the last word is, and what may stand there. Commands and flags
// come from commands() and each command's flag set, so they complete as
// soon as they exist; what an operand or a flag's value may be is in
// operandCandidates and flagCandidates, one case each.

import (
	"context"
	"io"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/model"
)

// completeBudget bounds everything a completion request does, Redis
// included: a shell waits for it on every tab.
const completeBudget = time.Second

// maxCandidates bounds the candidates of one request.
const maxCandidates = 1000

// themes are the values of --theme.
func themes() []candidate {
	return []candidate{{themeAuto, "from COLORFGBG, else dark"}, {themeLight, "light background"}, {themeDark, "dark background"}}
}

// lineState is what the words before the one being completed say.
type lineState struct {
	at       int      // index of the command's name, -1: none (the screen)
	operands []string // the operands after the command's name, in order
	pending  string   // the flag whose value the last word is ("" none)
	dashdash bool     // "--" was given: every word after it is an operand
}

// readLine walks words as scanArgs does; all tells which flags take a
// value.
func readLine(words []string, all *pflag.FlagSet) lineState {
	st := lineState{at: -1}
	operand := func(i int) {
		if st.at < 0 {
			st.at = i
			return
		}
		st.operands = append(st.operands, words[i])
	}
	for i := 0; i < len(words); i++ {
		a := words[i]
		switch {
		case st.dashdash || len(a) < 2 || a[0] != '-':
			operand(i)
		case a == "--":
			st.dashdash = true
		case a[1] == '-':
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := all.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				if i == len(words)-1 {
					st.pending = f.Name
				}
				i++
			}
		default:
			for j := 1; j < len(a); j++ {
				f := all.ShorthandLookup(a[j : j+1])
				if f == nil {
					break
				}
				if f.NoOptDefVal == "" {
					if j == len(a)-1 {
						if i == len(words)-1 {
							st.pending = f.Name
						}
						i++
					}
					break
				}
			}
		}
	}
	return st
}

// completeWords answers a request: words are the command line after the
// program's name, the last one the word being completed.
func (e env) completeWords(ctx context.Context, words []string) completion {
	ctx, cancel := context.WithTimeout(ctx, completeBudget)
	defer cancel()
	if len(words) == 0 {
		words = []string{""}
	}
	prev, cur := words[:len(words)-1], words[len(words)-1]
	cmds := commands()
	all := pflag.NewFlagSet("all", pflag.ContinueOnError)
	for _, c := range cmds {
		all.AddFlagSet(newFlagSet(c).FlagSet)
	}
	st := readLine(prev, all)
	cmd := &cmds[0]
	if st.at >= 0 {
		cmd = nil
		for i := range cmds {
			if cmds[i].name == prev[st.at] {
				cmd = &cmds[i]
			}
		}
		if cmd == nil {
			return completion{}
		}
	}
	// The flags given so far, parsed by the command's own flag set: the
	// configuration file and the Redis the live values come from.
	var rest []string
	for i, w := range prev {
		if i != st.at {
			rest = append(rest, w)
		}
	}
	if st.pending != "" {
		rest = rest[:len(rest)-1]
	}
	fs := newFlagSet(*cmd)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	live := &liveSource{e: e, cmd: *cmd, fs: fs, ok: fs.Parse(rest) == nil}

	var c completion
	prefix := ""
	switch {
	case st.pending != "":
		c = e.flagCandidates(ctx, fs, st.pending, cur, live)
		c.cands = offered(c.cands, false)
	case !st.dashdash && strings.HasPrefix(cur, "--") && strings.Contains(cur, "="):
		name, value, _ := strings.Cut(cur[2:], "=")
		if f := fs.Lookup(name); f != nil && f.NoOptDefVal == "" {
			c = e.flagCandidates(ctx, fs, f.Name, value, live)
			c.cands = offered(c.cands, true) // after "--name=", in the flag's own word
			prefix = "--" + name + "="
		}
	case !st.dashdash && strings.HasPrefix(cur, "-"):
		c.cands = flagNames(fs)
	case st.at < 0:
		for _, cm := range cmds {
			if cm.name != "" {
				c.cands = append(c.cands, candidate{cm.name, cm.summary})
			}
		}
	default:
		c.cands = offered(operandCandidates(ctx, cmd.name, st.operands, live), st.dashdash)
	}
	c.cands = keep(c.cands, prefix, cur)
	return c
}

// keep is the candidates that complete cur, prefix put before each value
// (the "--flag=" of a value given in the same word), each value once.
func keep(cands []candidate, prefix, cur string) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, c := range cands {
		c.value = prefix + c.value
		if !strings.HasPrefix(c.value, cur) || seen[c.value] {
			continue
		}
		seen[c.value] = true
		c.desc = textsafe.Cut(textsafe.Clean(c.desc), 80)
		out = append(out, c)
		if len(out) == maxCandidates {
			break
		}
	}
	return out
}

// flagNames are the command's flags, --name each, with their text.
func flagNames(fs *flagSet) []candidate {
	var out []candidate
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		_, usage := pflag.UnquoteUsage(f)
		if i := strings.IndexAny(usage, ";("); i > 0 {
			usage = strings.TrimSpace(usage[:i])
		}
		out = append(out, candidate{"--" + f.Name, usage})
	})
	return out
}

// flagCandidates are the values of the flag name that may complete value.
func (e env) flagCandidates(ctx context.Context, fs *flagSet, name, value string, live *liveSource) completion {
	switch name {
	case "theme":
		return completion{cands: themes()}
	case "target":
		return completion{cands: e.targetNames(fs)}
	case "job":
		return completion{cands: live.jobNames(ctx)}
	case "where":
		return completion{cands: append(e.savedQueryTerms(fs, value), whereJobTerms(value, live.jobNames(ctx))...)}
	}
	if f := fs.Lookup(name); f != nil {
		if varname, _ := pflag.UnquoteUsage(f); varname == "FILE" {
			return completion{files: true}
		}
	}
	return completion{}
}

// targetNames are the targets of the configuration file the command line
// names (--config), else of the default one; none when it cannot be read.
func (e env) targetNames(fs *flagSet) []candidate {
	path := ""
	if f := fs.Lookup("config"); f != nil {
		path = f.Value.String()
	}
	file, err := readConfig(e, path)
	if err != nil {
		return nil
	}
	var out []candidate
	for _, t := range file.Targets() {
		desc := t.Redis
		if len(t.Sentinel) > 0 {
			desc = "sentinel " + t.SentinelMaster
		}
		out = append(out, candidate{t.Name, desc})
	}
	return out
}

// savedQueryTerms complete a --where query's last word that is empty or
// begins with @: the query so far with @NAME for each saved query of the
// configuration file (the one --config names, else the default one). A
// name is letters, digits, '_' and '-' (the file refuses others), so it
// needs no quoting; offered still drops what is not shell-safe.
func (e env) savedQueryTerms(fs *flagSet, value string) []candidate {
	head, last := "", value
	if i := strings.LastIndexByte(value, ' '); i >= 0 {
		head, last = value[:i+1], value[i+1:]
	}
	if last != "" && !strings.HasPrefix(last, "@") {
		return nil
	}
	path := ""
	if f := fs.Lookup("config"); f != nil {
		path = f.Value.String()
	}
	quiet := e
	quiet.stderr = io.Discard
	file, err := readConfig(quiet, path)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(file.Queries))
	for n := range file.Queries {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []candidate
	for _, n := range names {
		out = append(out, candidate{head + "@" + n, textsafe.Clean(file.Queries[n])})
	}
	return out
}

// whereJobTerms completes the last term of a --where query that is, or
// begins, a job: term: the query so far with job:NAME for each job name.
func whereJobTerms(value string, jobs []candidate) []candidate {
	head, last := "", value
	if i := strings.LastIndexByte(value, ' '); i >= 0 {
		head, last = value[:i+1], value[i+1:]
	}
	if !strings.HasPrefix("job:", last) && !strings.HasPrefix(last, "job:") {
		return nil
	}
	var out []candidate
	for _, j := range jobs {
		out = append(out, candidate{head + "job:" + j.value, j.desc})
	}
	return out
}

// setOperands are the first operand of jobs.
func setOperands() []candidate {
	return []candidate{
		{string(model.SetRetry), "jobs that failed and will run again"},
		{string(model.SetScheduled), "jobs enqueued to run later"},
		{string(model.SetDead), "jobs that failed for good"},
		{"queue", "the queue of a job type: queue JOB"},
	}
}

// operandCandidates are what the next operand of the command cmd may be,
// after ops. A command whose operands name live things (job types, pools,
// lists, jobs) reads them through live; one already given is not offered
// again.
func operandCandidates(ctx context.Context, cmd string, ops []string, live *liveSource) []candidate {
	switch cmd {
	case "pause", "unpause", "repair-locks", "explain":
		return without(live.jobNames(ctx), ops)
	case "reap":
		return without(live.deadPools(ctx), ops)
	case "requeue":
		return without(live.inProgressKeys(ctx), ops)
	case "throttle":
		if len(ops) == 0 {
			return live.jobNames(ctx)
		}
	case "history", "undo":
		if len(ops) == 0 {
			return live.actionIDs(ctx, cmd == "undo")
		}
	case "completion":
		if len(ops) == 0 {
			return []candidate{{"bash", ""}, {"zsh", ""}, {"fish", ""}}
		}
	case "jobs":
		return jobsOperands(ctx, ops, live)
	}
	return nil
}

// jobsOperands follow the grammar of parseJobsArgs.
func jobsOperands(ctx context.Context, ops []string, live *liveSource) []candidate {
	if len(ops) == 0 {
		return setOperands()
	}
	if ops[0] == "queue" {
		switch {
		case len(ops) == 1:
			return live.jobNames(ctx)
		case len(ops) == 2:
			return []candidate{{"delete", "remove jobs from the queue: delete ID..., or delete --where QUERY"}, {"park", "move the jobs a query matches to the dead set: park --where QUERY"}}
		case ops[2] == "delete":
			return without(live.queueIDs(ctx, ops[1]), ops[3:])
		}
		return nil
	}
	set, err := model.ParseSetName(ops[0])
	if err != nil {
		return nil
	}
	switch {
	case len(ops) == 1:
		return []candidate{{"requeue", "push jobs onto their queues"}, {"delete", "delete jobs"},
			{"edit", "edit a job's args in $EDITOR, then replace or requeue it"}, {"duplicate", "push a copy of a job with a new id"}}
	case ops[1] == "requeue" || ops[1] == "delete":
		return without(live.setIDs(ctx, set), ops[2:])
	case (ops[1] == "edit" || ops[1] == "duplicate") && len(ops) == 2:
		return live.setIDs(ctx, set)
	}
	return nil
}

// without drops the candidates already given.
func without(cands []candidate, given []string) []candidate {
	var out []candidate
	for _, c := range cands {
		if !contains(given, c.value) {
			out = append(out, c)
		}
	}
	return out
}

// offered is the candidates that may be offered where they go: each one
// shellSafe, and none that begins with '-' unless dashOK (after "--" on
// the line, or inside a "--flag=" word), where no command reads it as a
// flag. A job named --redis=host offered after "pause " would be typed
// as the --redis flag; it is offered after "pause -- ".
func offered(cands []candidate, dashOK bool) []candidate {
	var out []candidate
	for _, c := range cands {
		if shellSafe(c.value) && (dashOK || !strings.HasPrefix(c.value, "-")) {
			out = append(out, c)
		}
	}
	return out
}

// shellSafe reports a value that can be offered as typed: the shells
// insert a candidate as it is (bash's COMPREPLY, zsh's _describe -Q), so
// it is clean text of letters, digits and punctuation that none of bash,
// zsh and fish gives a meaning to, and it does not begin with '=' (zsh
// expands =cmd to a path). A value with spaces, quotes, globs, '^' (a
// glob in zsh, a redirection in older fish) or control characters is not
// offered: it would need quoting, or could run something.
func shellSafe(s string) bool {
	if s == "" || s[0] == '=' || textsafe.Clean(s) != s {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_.-:@/+,%=", r) {
			return false
		}
	}
	return true
}
