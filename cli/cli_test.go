package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestHelpListsOnlyTheCommandsFlags: `workq-tui CMD --help` lists the flags
// that CMD takes and none of the others.
func TestHelpListsOnlyTheCommandsFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		has, not []string
	}{
		{[]string{"--help"}, []string{"--redis", "--interval", "--scan-interval", "--audit-log", "--batch", "--theme", "snapshot ", "repair-locks "},
			[]string{"--json", "--dry-run", "--yes", "--all-dead"}},
		{[]string{"snapshot", "--help"}, []string{"--redis", "--tls-ca", "--dead-after", "--json", "--demo"},
			[]string{"--yes", "--dry-run", "--batch", "--interval", "--theme", "--all-dead"}},
		{[]string{"reap", "-h"}, []string{"--redis", "--dead-after", "--dry-run", "--yes", "--all-dead", "--batch"},
			[]string{"--json", "--interval", "--theme"}},
		{[]string{"requeue", "--help"}, []string{"--read-only", "--dead-after", "--dry-run", "--yes", "--batch"},
			[]string{"--json", "--all-dead", "--interval"}},
		{[]string{"repair-locks", "--help"}, []string{"--read-only", "--dry-run", "--yes"},
			[]string{"--json", "--all-dead", "--batch", "--dead-after", "--interval"}},
		{[]string{"-n", "x", "--help", "snapshot"}, []string{"Usage: workq-tui snapshot", "--json"}, []string{"--yes"}},
		{[]string{"version", "--help"}, []string{"--version"}, []string{"--redis", "--json"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, stderr, code := runCLI(t, input{}, tc.args...)
			if code != ExitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			for _, s := range tc.has {
				if !strings.Contains(out, s) {
					t.Errorf("help lacks %q:\n%s", s, out)
				}
			}
			_, flags, _ := strings.Cut(out, "\nFlags")
			flags, _, _ = strings.Cut(flags, "\nEnvironment:")
			for _, s := range tc.not {
				if strings.Contains(flags, s) {
					t.Errorf("help lists %q:\n%s", s, out)
				}
			}
		})
	}
}

// TestFlagsOfOtherCommandsAreRefused: one line saying which flag does not
// apply to which command, and where the command's flags are listed; exit 2.
func TestFlagsOfOtherCommandsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		help string
	}{
		{[]string{"snapshot", "--yes"}, "--yes does not apply to snapshot", "snapshot"},
		{[]string{"--batch=5", "snapshot", "--all-dead"}, "--batch, --all-dead does not apply to snapshot", "snapshot"},
		{[]string{"repair-locks", "--dead-after", "3s", "job"}, "--dead-after does not apply to repair-locks", "repair-locks"},
		{[]string{"reap", "--interval=1s", "--all-dead"}, "--interval does not apply to reap", "reap"},
		{[]string{"--json"}, "--json does not apply to the screen", ""},
		{[]string{"--theme", "dark", "snapshot"}, "--theme does not apply to snapshot", "snapshot"},
		{[]string{"reap", "--nope"}, "unknown flag: --nope", "reap"},
		{[]string{"nope"}, `unknown command "nope"`, ""},
		{[]string{"reap"}, "reap needs pool IDs or --all-dead (`workq-tui snapshot` lists the dead pools)", "reap"},
		{[]string{"--interval=1ms"}, "--interval must be at least 250ms", ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := runCLI(t, input{tty: true}, tc.args...)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			hint := "Run 'workq-tui --help' for usage."
			if tc.help != "" {
				hint = "Run 'workq-tui " + tc.help + " --help' for usage."
			}
			if code != ExitUsage || len(lines) != 2 || lines[0] != "workq-tui: "+tc.want || lines[1] != hint {
				t.Fatalf("exit %d, stderr %q; want exit 2, %q and %q", code, stderr, tc.want, hint)
			}
		})
	}
}

// TestCommandFlagsAsTheWholeSet: the flags of every command, built only
// as far as a look-up needs, answer every look-up as the flag set of all
// of them does; a command line that names only the screen's flags and
// its command's builds no other command's flags.
func TestCommandFlagsAsTheWholeSet(t *testing.T) {
	whole := pflag.NewFlagSet("all", pflag.ContinueOnError)
	for _, c := range commands() {
		whole.AddFlagSet(newFlagSet(c).FlagSet)
	}
	same := func(what string, got, want *pflag.Flag) {
		t.Helper()
		if (got == nil) != (want == nil) || got != nil && (got.Name != want.Name || got.Shorthand != want.Shorthand ||
			got.NoOptDefVal != want.NoOptDefVal || got.Value.Type() != want.Value.Type() || got.Usage != want.Usage) {
			t.Errorf("%s: %+v, want %+v", what, got, want)
		}
	}
	whole.VisitAll(func(f *pflag.Flag) {
		same("--"+f.Name, (&commandFlags{cmds: commands()}).Lookup(f.Name), f)
		if f.Shorthand != "" {
			same("-"+f.Shorthand, (&commandFlags{cmds: commands()}).ShorthandLookup(f.Shorthand), f)
		}
	})
	none := &commandFlags{cmds: commands()}
	if f := none.Lookup("no-such-flag"); f != nil || none.built != len(commands()) {
		t.Errorf("a flag no command has: %v after %d of %d commands", f, none.built, len(commands()))
	}
	if f := none.ShorthandLookup("Q"); f != nil {
		t.Errorf("-Q: %v", f)
	}
	if got, want := none.whole().FlagUsages(), whole.FlagUsages(); got != want {
		t.Errorf("whole set:\n%s\nwant\n%s", got, want)
	}

	all := &commandFlags{cmds: commands()}
	at, used := scanArgs([]string{"--redis", "h:1", "-n", "bench", "snapshot", "--json"}, all)
	if at != 4 || strings.Join(used, " ") != "redis namespace json" {
		t.Errorf("command at %d, flags %q", at, used)
	}
	if all.built > 2 {
		t.Errorf("%d commands' flags built to find snapshot, want the screen's and snapshot's", all.built)
	}
}

// TestCommandNameAmongFlags: flags go before or after the command name; a
// flag's value is never taken for the command.
func TestCommandNameAmongFlags(t *testing.T) {
	all := pflag.NewFlagSet("all", pflag.ContinueOnError)
	for _, c := range commands() {
		all.AddFlagSet(newFlagSet(c).FlagSet)
	}
	for _, tc := range []struct {
		args []string
		at   int
		used string
	}{
		{[]string{"snapshot"}, 0, ""},
		{[]string{"-n", "reap", "snapshot"}, 2, "namespace"},
		{[]string{"-nreap", "snapshot"}, 1, "namespace"},
		{[]string{"--namespace", "reap", "snapshot", "--json"}, 2, "namespace json"},
		{[]string{"--redis=reap", "--read-only", "reap", "x"}, 2, "redis read-only"},
		{[]string{"--dry-run", "requeue", "k"}, 1, "dry-run"},
		{[]string{"-h"}, -1, "help"},
		{[]string{"--timeout", "1s"}, -1, "timeout"},
		{[]string{"--", "snapshot", "--json"}, 1, ""},
		{[]string{"--bogus", "snapshot"}, 1, "bogus"},
	} {
		at, used := scanArgs(tc.args, all)
		if at != tc.at || strings.Join(used, " ") != tc.used {
			t.Errorf("%q: command at %d, flags %q; want %d, %q", tc.args, at, used, tc.at, tc.used)
		}
		at, used = scanArgs(tc.args, &commandFlags{cmds: commands()})
		if at != tc.at || strings.Join(used, " ") != tc.used {
			t.Errorf("%q, flags built as needed: command at %d, flags %q; want %d, %q", tc.args, at, used, tc.at, tc.used)
		}
	}
}
