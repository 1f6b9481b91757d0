package config

// This file owns a target's job health thresholds: the keys that stand
// for the flags of the same name (fail_window for --fail-window...), kept
// as the text a flag takes, so that a command sets its flag from them.

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// HealthKeys are the job health keys of a target's table, in the order
// the documentation shows them.
func HealthKeys() []string {
	return []string{"fail_window", "fail_baseline", "fail_floor", "fail_multiple",
		"wait_limit", "starve_after", "paused_limit", "checkin_limit"}
}

// HealthFlag is the flag a job health key stands for.
func HealthFlag(key string) string { return strings.ReplaceAll(key, "_", "-") }

func isHealthKey(key string) bool {
	for _, k := range HealthKeys() {
		if k == key {
			return true
		}
	}
	return false
}

// setHealthKey checks one job health key's value and keeps it as its
// flag's text.
func setHealthKey(t *Target, key string, v any) error {
	var text string
	switch key {
	case "fail_floor", "fail_multiple":
		var f float64
		switch n := v.(type) {
		case int64:
			f = float64(n)
		case float64:
			f = n
		default:
			return want("a number", v)
		}
		if key == "fail_floor" && !(f > 0) {
			return fmt.Errorf("%v is not a positive number of failures a minute", f)
		}
		if key == "fail_multiple" && !(f >= 1) {
			return fmt.Errorf("%v is not a multiple of 1 or more", f)
		}
		text = strconv.FormatFloat(f, 'g', -1, 64)
	default:
		s, ok := v.(string)
		if !ok {
			return want(`a duration in quotes, such as "5m"`, v)
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q is not a positive duration such as \"5m\"", s)
		}
		text = d.String()
	}
	if t.Health == nil {
		t.Health = map[string]string{}
	}
	t.Health[key] = text
	return nil
}
