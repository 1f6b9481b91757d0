package cli

import (
	"strings"
	"testing"
)

// An unknown flag is reported with the closest flag of the command (by the
// names other tools use, a typo, or a prefix), and a word taken for the
// command because the unknown flag before it was meant to take a value is
// reported as that flag, not as an unknown command.
func TestUnknownFlagSuggestsTheClosest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		help string
	}{
		{[]string{"--ns", "inc3", "snapshot"}, "unknown flag: --ns (did you mean -n/--namespace?)", ""},
		{[]string{"--ns=inc3", "snapshot"}, "unknown flag: --ns (did you mean -n/--namespace?)", "snapshot"},
		{[]string{"snapshot", "--ns", "inc3"}, "unknown flag: --ns (did you mean -n/--namespace?)", "snapshot"},
		{[]string{"--host=h:6379", "snapshot"}, "unknown flag: --host (did you mean --redis?)", "snapshot"},
		{[]string{"--url", "redis://h", "snapshot"}, "unknown flag: --url (did you mean --redis?)", ""},
		{[]string{"--database=2", "snapshot"}, "unknown flag: --database (did you mean --db?)", "snapshot"},
		{[]string{"snapshot", "--namepsace=x"}, "unknown flag: --namepsace (did you mean -n/--namespace?)", "snapshot"},
		{[]string{"reap", "--dryrun", "--all-dead"}, "unknown flag: --dryrun (did you mean --dry-run?)", "reap"},
		{[]string{"snapshot", "--readonly"}, "unknown flag: --readonly (did you mean --read-only?)", "snapshot"},
		{[]string{"snapshot", "--jso"}, "unknown flag: --jso (did you mean --json?)", "snapshot"},
		{[]string{"reap", "--nope"}, "unknown flag: --nope", "reap"},
		{[]string{"--zzzzzz", "nope"}, "unknown flag: --zzzzzz", ""},
		{[]string{"nope"}, `unknown command "nope"`, ""},
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
