package config

import (
	"strconv"
	"strings"
)

// Describe is the target's settings as `key = value` lines in the order of
// Keys, the keys its table gives only, with the connection's address as
// written. It never holds a password: the file cannot hold one, and the
// password sources are shown by name (the file's path, the variable's
// name), never read. Values are as the file gives them; a caller printing
// them on a terminal cleans them (textsafe.Clean) like any other text.
func (t *Target) Describe() []string {
	var out []string
	add := func(key, v string) {
		if t.Has(key) {
			out = append(out, key+" = "+v)
		}
	}
	q := strconv.Quote
	add("redis", q(t.Redis))
	add("namespace", q(t.Namespace))
	add("db", strconv.Itoa(t.DB))
	add("user", q(t.User))
	add("password_file", q(t.PasswordFile))
	add("password_env", q(t.PasswordEnv))
	add("tls", strconv.FormatBool(t.TLS))
	add("tls_ca", q(t.TLSCA))
	add("tls_skip_verify", strconv.FormatBool(t.TLSSkipVerify))
	add("timeout", q(t.Timeout.String()))
	add("dead_after", q(t.DeadAfter.String()))
	add("read_only", strconv.FormatBool(t.ReadOnly))
	t.describeSentinel(add)
	for _, k := range HealthKeys() {
		if v, ok := t.Health[k]; ok && t.Has(k) {
			if k == "fail_floor" || k == "fail_multiple" {
				add(k, v)
			} else {
				add(k, q(v))
			}
		}
	}
	return out
}

// Summary is one line for a list of targets: the name, the address, the
// namespace and read-only when the target is.
func (t *Target) Summary() string {
	parts := []string{t.Name}
	if t.Redis != "" {
		parts = append(parts, t.Redis)
	} else {
		parts = append(parts, "(default address)")
	}
	if t.Namespace != "" {
		parts = append(parts, "namespace "+t.Namespace)
	}
	if t.ReadOnly {
		parts = append(parts, "read-only")
	}
	return strings.Join(parts, "  ")
}
