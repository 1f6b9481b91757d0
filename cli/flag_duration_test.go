package cli

import (
	"strings"
	"testing"
)

// A duration flag given a duration longer than a time.Duration holds is
// refused with one line saying so, before anything connects; a value that
// is no duration keeps pflag's words.
func TestDurationFlagOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"timeline", "--since", "9999999h"}, "--since 9999999h is out of range: a duration lies from -2562047h to 2562047h"},
		{[]string{"timeline", "--bucket=99999999999s"}, "--bucket 99999999999s is out of range"},
		{[]string{"timeline", "--since=-9999999h"}, "--since -9999999h is out of range"},
		{[]string{"--timeout", "9999999h", "snapshot"}, "--timeout 9999999h is out of range"},
		{[]string{"snapshot", "--dead-after", "2562048h"}, "--dead-after 2562048h is out of range"},
		{[]string{"timeline", "--since", "5x"}, `invalid argument "5x" for "--since" flag`},
	} {
		out, stderr, code := runCLI(t, input{}, append([]string{"--redis=127.0.0.1:1"}, tc.args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, tc.want) || errorLines(stderr) != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, out, stderr, tc.want)
		}
	}
}
