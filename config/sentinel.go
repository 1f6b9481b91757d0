package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// The Sentinel keys of a target: the same settings as the Sentinel flags
// (--sentinel, --sentinel-master, --sentinel-user, --sentinel-password-file,
// --sentinel-tls, --replica), and sentinel_password_env, which has no flag
// (the command line's variable is SENTINEL_PASSWORD).

// SentinelSettings ask Redis Sentinels for the address instead of naming it.
type SentinelSettings struct {
	// Sentinel lists the sentinels, each host:port; none: no Sentinel.
	Sentinel       []string
	SentinelMaster string
	SentinelUser   string
	// SentinelPasswordFile names a file holding the Sentinel password (~
	// expanded); SentinelPasswordEnv an environment variable holding it. At
	// most one is set.
	SentinelPasswordFile string
	SentinelPasswordEnv  string
	SentinelTLS          bool
	Replica              bool
}

// sentinelKeys are the Sentinel keys in the order Keys shows them.
func sentinelKeys() []string {
	return []string{
		"sentinel", "sentinel_master", "sentinel_user", "sentinel_password_file",
		"sentinel_password_env", "sentinel_tls", "replica",
	}
}

// DefaultSentinelPasswordEnv is the variable the Sentinel password comes
// from when no password file and no sentinel_password_env name another.
const DefaultSentinelPasswordEnv = "SENTINEL_PASSWORD"

// setSentinelKey stores one Sentinel key's value; ok is false for a key
// that is not one of them.
func (p *parser) setSentinelKey(t *Target, key string, v any) (ok bool, err error) {
	switch key {
	case "sentinel":
		list, isList := v.([]any)
		if !isList {
			return true, want(`an array of "host:port" strings`, v)
		}
		if len(list) == 0 {
			return true, errors.New("must not be empty")
		}
		addrs := make([]string, 0, len(list))
		for _, a := range list {
			s, err := str(a)
			if err != nil {
				return true, err
			}
			if err := CheckHostPort(s); err != nil {
				return true, err
			}
			addrs = append(addrs, s)
		}
		t.Sentinel = addrs
	case "sentinel_master":
		s, err := str(v)
		if err != nil {
			return true, err
		}
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return true, fmt.Errorf("%q: want a name without spaces or control characters", s)
		}
		t.SentinelMaster = s
	case "sentinel_user":
		s, err := str(v)
		if err != nil {
			return true, err
		}
		t.SentinelUser = s
	case "sentinel_password_file":
		s, err := str(v)
		if err != nil {
			return true, err
		}
		if s == "" {
			return true, errors.New("must not be empty")
		}
		if s, err = expandHome(s, p.home); err != nil {
			return true, err
		}
		t.SentinelPasswordFile = s
	case "sentinel_password_env":
		s, err := str(v)
		if err != nil {
			return true, err
		}
		if !envName.MatchString(s) {
			return true, fmt.Errorf("%q is not an environment variable name", s)
		}
		t.SentinelPasswordEnv = s
	case "sentinel_tls", "replica":
		b, isBool := v.(bool)
		if !isBool {
			return true, want("true or false", v)
		}
		if key == "replica" {
			t.Replica = b
		} else {
			t.SentinelTLS = b
		}
	case "sentinel_password":
		return true, errors.New("a password is not kept in this file: name a file holding it with sentinel_password_file, or an environment variable with sentinel_password_env")
	default:
		return false, nil
	}
	return true, nil
}

// checkSentinel refuses the combinations the Sentinel flags refuse.
func (p *parser) checkSentinel(t *Target, path []string) {
	at := func(key string) []string { return append(append([]string(nil), path...), key) }
	name := t.Name
	if t.Has("sentinel") && t.Has("redis") {
		p.add(at("sentinel"), "targets.%s: give redis or sentinel, not both: with sentinel the sentinels name the Redis address", name)
	}
	if t.Has("sentinel") && !t.Has("sentinel_master") {
		p.add(at("sentinel"), "targets.%s: sentinel needs sentinel_master (the name the sentinels monitor)", name)
	}
	if !t.Has("sentinel") {
		for _, k := range sentinelKeys()[1:] {
			if t.Has(k) {
				p.add(at(k), "targets.%s.%s needs sentinel = [\"host:port\", ...]", name, k)
			}
		}
	}
	if t.SentinelPasswordFile != "" && t.SentinelPasswordEnv != "" {
		p.add(at("sentinel_password_env"), "targets.%s: give sentinel_password_file or sentinel_password_env, not both", name)
	}
	if t.Replica && !t.ReadOnly {
		p.add(at("replica"), "targets.%s: replica = true needs read_only = true: a replica takes no writes", name)
	}
}

// CheckHostPort refuses what is not host:port with a port from 1 to 65535
// (a Sentinel's address).
func CheckHostPort(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil || host == "" || strings.ContainsFunc(a, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("%q: want host:port", a)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: the port must be a number from 1 to 65535", a)
	}
	return nil
}

// mergeSentinel applies the target's Sentinel keys as Merge does the
// others. A --redis on the command line stands for the whole address: the
// target's sentinels are dropped unless --sentinel is given too.
func mergeSentinel(out *Settings, t *Target, changed func(string) bool) {
	if changed("redis") && !changed("sentinel") {
		return
	}
	keys := FlagKeys()
	pick := func(flag string, apply func()) {
		if !changed(flag) && t.Has(keys[flag]) {
			apply()
		}
	}
	pick("sentinel", func() { out.Sentinel = t.Sentinel })
	pick("sentinel-master", func() { out.SentinelMaster = t.SentinelMaster })
	pick("sentinel-user", func() { out.SentinelUser = t.SentinelUser })
	pick("sentinel-tls", func() { out.SentinelTLS = t.SentinelTLS })
	pick("replica", func() { out.Replica = t.Replica })
	if !changed("sentinel-password-file") && (t.SentinelPasswordFile != "" || t.SentinelPasswordEnv != "") {
		out.SentinelPasswordFile, out.SentinelPasswordEnv = t.SentinelPasswordFile, t.SentinelPasswordEnv
	}
}

// SentinelPassword reads the Sentinel password the settings name: the
// password file, else the variable SentinelPasswordEnv, else
// SENTINEL_PASSWORD; "" when there is none. A sentinel_password_env naming
// an unset variable is an error.
func (s Settings) SentinelPassword(getenv func(string) string) (string, error) {
	switch {
	case s.SentinelPasswordFile != "":
		pw, err := ReadSecretFile(s.SentinelPasswordFile)
		if err != nil {
			return "", fmt.Errorf("read sentinel password file: %w", err)
		}
		return pw, nil
	case s.SentinelPasswordEnv != "":
		v := getenv(s.SentinelPasswordEnv)
		if v == "" {
			return "", fmt.Errorf("the sentinel password variable %s is not set", s.SentinelPasswordEnv)
		}
		return v, nil
	}
	return getenv(DefaultSentinelPasswordEnv), nil
}

// describeSentinel adds the Sentinel keys the target gives, as Describe
// does the others.
func (t *Target) describeSentinel(add func(key, v string)) {
	q := strconv.Quote
	addrs := make([]string, len(t.Sentinel))
	for i, a := range t.Sentinel {
		addrs[i] = q(a)
	}
	add("sentinel", "["+strings.Join(addrs, ", ")+"]")
	add("sentinel_master", q(t.SentinelMaster))
	add("sentinel_user", q(t.SentinelUser))
	add("sentinel_password_file", q(t.SentinelPasswordFile))
	add("sentinel_password_env", q(t.SentinelPasswordEnv))
	add("sentinel_tls", strconv.FormatBool(t.SentinelTLS))
	add("replica", strconv.FormatBool(t.Replica))
}
