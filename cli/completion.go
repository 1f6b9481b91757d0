package cli

// This file owns shell completion: the completion command, which prints a
// script for bash, zsh or fish, and the hidden request those scripts send
// back to the program (completeRequest), answered by completion_words.go
// (commands, flags, flag values, operands) and completion_live.go (job
// names, pool IDs, keys and job IDs read from Redis).
//
// Why the protocol is written here rather than taken from spf13/cobra,
// which generates these scripts and a hidden __complete request of its
// own: cobra would also take over what commands() and scanArgs do, and it
// does those differently. It finds subcommands before flags (flags of any
// command given before the command's name, as in `-n app snapshot`, are
// refused or must be made persistent), reports a flag of another command
// as "unknown flag" instead of "--x does not apply to y", prints its own
// help layout and `Error:` lines, and maps errors to exit status 1. Keeping
// today's output, exit codes and did-you-mean errors would mean overriding
// most of it and deleting little, and the command table is the one place
// every new command touches. Written here, the protocol reads the same
// command table, flag sets and target merging as the commands themselves,
// so a new command or flag completes without a line of completion code,
// and a command's operands are one case in operandCandidates.
//
// The protocol: the script calls `workq-tui __complete WORD...` with the
// words of the command line up to the cursor, the last one being the word
// to complete (empty after a space). The program prints one candidate a
// line, each optionally followed by a tab and a description, then a last
// line that starts with ':' and holds the directive: ":files" asks the
// shell to complete file names, ":" nothing more. It prints nothing else,
// never an error, and exits 0; what it reads from Redis it reads on a
// read-only connection within completeBudget.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// completeRequest is the hidden first argument of a completion request. It
// is no command: neither the command list nor the help shows it.
const completeRequest = "__complete"

func completionCommand() command {
	return command{
		name:    "completion",
		args:    "bash|zsh|fish",
		summary: "print the shell completion script for bash, zsh or fish",
		help: `Print a completion script for bash, zsh or fish. Besides commands, flags
and flag values (--theme, --target names of the configuration file, job
sets, file names), it completes live values by asking the program, which
reads Redis (read-only, within a second; a slow or absent Redis completes
nothing): job names for pause, unpause, repair-locks, jobs queue and
--job; dead pool IDs for reap; in-progress lists of dead pools and orphans
for requeue; the first page of job IDs for jobs SET
requeue|delete|edit|duplicate and jobs queue JOB delete. The Redis is the one the command line names so far
(--redis, --target, ...), else the default. A value that would need
quoting is not offered, and one that begins with '-' only after "--"
(pause -- <TAB>), where no command reads it as a flag.

  bash:  source <(workq-tui completion bash)     (in ~/.bashrc)
  zsh:   source <(workq-tui completion zsh)      (in ~/.zshrc, after compinit)
  fish:  workq-tui completion fish > ~/.config/fish/completions/workq-tui.fish`,
		flags: func(fs *pflag.FlagSet) runner { return completionCmd{} },
	}
}

type completionCmd struct{}

func (completionCmd) run(_ context.Context, e env, args []string) error {
	if len(args) != 1 {
		return usageErrorf("completion needs one shell: bash, zsh or fish")
	}
	script, ok := completionScripts()[args[0]]
	if !ok {
		return usageErrorf("completion: unknown shell %q: want bash, zsh or fish", args[0])
	}
	_, err := io.WriteString(e.stdout, script)
	return err
}

// candidate is one completion: the word, and what zsh and fish show beside
// it ("" for nothing).
type candidate struct{ value, desc string }

// completion is the answer to a request.
type completion struct {
	cands []candidate
	files bool // let the shell complete file names
}

// complete answers a completion request: words are the command line after
// the program's name, the last one the word being completed. It always
// succeeds: a request that cannot be answered prints no candidate.
func (e env) complete(ctx context.Context, words []string) error {
	quiet := e
	quiet.stderr = io.Discard
	quiet.stdin = strings.NewReader("")
	quiet.stdinIsTTY = false
	c := quiet.completeWords(ctx, words)
	var b strings.Builder
	for _, cand := range c.cands {
		b.WriteString(cand.value)
		if cand.desc != "" {
			b.WriteString("\t" + cand.desc)
		}
		b.WriteByte('\n')
	}
	if c.files {
		b.WriteString(":files\n")
	} else {
		b.WriteString(":\n")
	}
	_, _ = fmt.Fprint(e.stdout, b.String())
	return nil
}
