package cli

// This file owns the error of a duration flag given a value too long for a
// time.Duration: pflag calls it not a duration at all.

import (
	"fmt"
	"regexp"

	"github.com/spf13/pflag"
)

// durationShape is the shape of a Go duration (2h, 1h30m, 1.5s).
var durationShape = regexp.MustCompile(`^[+-]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

// flagValueError finds the flag and value of pflag's invalid-argument
// error.
var flagValueError = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-[^,]*, )?--([^"]+)" flag: `)

// durationRangeError is err, or, when err is a duration flag's value that
// is written as a duration but is longer than one holds, one line saying
// so and what the longest is.
func durationRangeError(err error, fs *pflag.FlagSet) error {
	m := flagValueError.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	f := fs.Lookup(m[2])
	if f == nil || f.Value.Type() != "duration" || !durationShape.MatchString(m[1]) {
		return err
	}
	return fmt.Errorf("--%s %s is out of range: a duration lies from -2562047h to 2562047h (about 292 years)", m[2], m[1])
}
